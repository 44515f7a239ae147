#pragma once
/// ember::save / ember::load: PyTorch's zip checkpoint format from C++ (libtorch's
/// torch::save / torch::load, torch::serialize::OutputArchive / InputArchive).

#include "frontend/serialize/Archive.h"
#include "frontend/serialize/CheckpointError.h"
#include "frontend/serialize/Serialize.h"
