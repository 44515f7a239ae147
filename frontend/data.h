#pragma once
/// ember::data: datasets, transforms, samplers and make_data_loader (libtorch's torch::data).

#include "frontend/data/DataLoader.h"
#include "frontend/data/Datasets.h"
#include "frontend/data/Example.h"
#include "frontend/data/Samplers.h"
#include "frontend/data/Transforms.h"
