#pragma once
/// Ember's public API (include/ember/ember.h) without the operators' umbrella,
/// ember/generated/Functions.h: a test includes ember/generated/ops/<name>.h for each op it
/// calls, so an edit of one YAML entry rebuilds only the tests that call that op (Note
/// [Per-op headers] in codegen/gen.py). test/python/test_op_includes.py keeps this list
/// equal to ember.h's.

#include "aten/PhiloxGenerator.h"
#include "aten/ReductionOverloads.h"
#include "aten/Print.h"
#include "aten/TensorFactories.h"
#include "aten/TensorIndexing.h"
#include "aten/TensorOperators.h"
#include "aten/amp/Autocast.h"
#include "aten/autograd/Autograd.h"
#include "aten/tracing/Passes.h"
#include "aten/tracing/Serialize.h"
#include "aten/tracing/Tracer.h"
#include "c10/core/Device.h"
#include "c10/core/IValue.h"
#include "c10/core/LocalDispatchKeySet.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/core/Tensor.h"
#include "c10/core/TensorOptions.h"
#include "c10/core/Threads.h"
#include "c10/dispatch/Dispatcher.h"
#include "c10/dispatch/Library.h"
#include "c10/util/Exception.h"
#include "frontend/nn.h"
#include "frontend/optim.h"
#include "frontend/compat.h"
#include "frontend/data.h"
#include "frontend/serialize.h"
