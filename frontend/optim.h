#pragma once
/// ember::optim, libtorch's torch::optim: Optimizer, SGD, Adam, AdamW, RMSprop, and
/// the StepLR scheduler.

#include "frontend/optim/adam.h"
#include "frontend/optim/optimizer.h"
#include "frontend/optim/rmsprop.h"
#include "frontend/optim/schedulers.h"
#include "frontend/optim/sgd.h"
