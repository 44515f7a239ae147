#pragma once
/// ember::data: datasets, transforms, samplers and make_data_loader (libtorch's torch::data).
