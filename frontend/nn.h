#pragma once
/// ember::nn, libtorch's torch::nn: Module and the holder pattern, the modules with their
/// options, nn::functional and nn::init.

#include "frontend/nn/enum.h"
#include "frontend/nn/functional.h"
#include "frontend/nn/init.h"
#include "frontend/nn/module.h"
#include "frontend/nn/modules/activation.h"
#include "frontend/nn/modules/container.h"
#include "frontend/nn/modules/conv.h"
#include "frontend/nn/modules/linear.h"
#include "frontend/nn/modules/loss.h"
#include "frontend/nn/modules/normalization.h"
#include "frontend/nn/modules/pooling.h"
#include "frontend/nn/modules/rnn.h"
#include "frontend/nn/ordered_dict.h"
#include "frontend/nn/pimpl.h"
#include "frontend/nn/utils.h"
