#pragma once
/// Ember's public C++ API: tensors, the dispatcher, the registration API and operators.

#include "aten/Print.h"
#include "aten/TensorFactories.h"
#include "aten/native/cpu/PhiloxGenerator.h"
#include "c10/core/Device.h"
#include "c10/core/IValue.h"
#include "c10/core/LocalDispatchKeySet.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Tensor.h"
#include "c10/core/Threads.h"
#include "c10/dispatch/Dispatcher.h"
#include "c10/dispatch/Library.h"
#include "c10/util/Exception.h"
#include "c10/core/TensorOptions.h"
#include "ember/generated/Functions.h"
