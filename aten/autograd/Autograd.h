#pragma once
/// Ember's autograd in C++: grad modes, tensor metadata, the engine, custom functions.

#include "aten/autograd/CustomFunction.h"
#include "aten/autograd/Engine.h"
#include "aten/autograd/GradMode.h"
#include "aten/autograd/Variable.h"
