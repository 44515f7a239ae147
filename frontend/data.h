#pragma once
/// ember::data: datasets, transforms, samplers and make_data_loader (libtorch's torch::data).

#include "frontend/data/DataLoader.h"
#include "frontend/data/Datasets.h"
#include "frontend/data/Example.h"
#include "frontend/data/Samplers.h"
#include "frontend/data/Transforms.h"

namespace ember::data {
// libtorch's torch/data.h: the datasets are also reached as torch::data::Dataset and so on.
using namespace datasets;  // NOLINT(build/namespaces)
}  // namespace ember::data
