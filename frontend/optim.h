#pragma once
/// ember::optim, libtorch's torch::optim: Optimizer, SGD, Adam, AdamW, RMSprop.

#include "frontend/optim/adam.h"
#include "frontend/optim/optimizer.h"
#include "frontend/optim/rmsprop.h"
#include "frontend/optim/sgd.h"
