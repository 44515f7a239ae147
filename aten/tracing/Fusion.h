#pragma once
/// The fused elementwise program: a chain of elementwise ops that the fusion pass
/// (Passes.h) turned into one node, evaluated tile by tile in one pass over memory by the
/// CPU kernel in aten/native/cpu/fused_elementwise.cpp, with the same vector functors the
/// eager kernels use (Note [Fused tiles]).

#include <cstdint>
#include <string>
#include <vector>

#include "aten/tracing/Graph.h"
#include "c10/core/ScalarType.h"
#include "c10/macros/Export.h"

namespace ember::jit {

/// The ops a fused program runs. Unary ops read a; binary ops a and b; Where reads c ? a : b;
/// an input register of another dtype (a where() condition, a cast's source) is converted to
/// the program's dtype as each tile is loaded;
/// the *Scalar forms take their second operand from s0. Add and Sub (both forms) take alpha
/// in s1; Gelu is gelu(approximate='none'), GeluTanh approximate='tanh'.
enum class FusedOp : uint8_t {
  // unary
  Neg, Abs, Relu, Exp, Expm1, Log, Log1p, Log2, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid,
  Erf, Gelu, GeluTanh, Silu, Reciprocal, Square,
  // binary, tensor operands
  Add, Sub, Mul, Div, Maximum, Minimum,
  // binary, scalar second operand s0 (RSub: s0 - a)
  AddScalar, SubScalar, MulScalar, DivScalar, RSubScalar,
  // clamp to [s0, s1] (either may be absent: +-inf)
  Clamp,
  // c != 0 ? a : b
  Where,
  // a cast to the program's dtype (aten::to.dtype): `a` is an input register read in its own
  // dtype and converted as the tile is loaded, so the instruction only copies
  Cast,
};

/// The name the program prints for an op ("exp", "add").
EMBER_API const char* fused_op_name(FusedOp op);

/// One instruction: dst = op(a, b, c) with scalar operands s0, s1.
struct FusedInstr {
  FusedOp op;
  int16_t dst = -1, a = -1, b = -1, c = -1;
  double s0 = 0, s1 = 1;
};

/// A reduction that ends a fused chain (Note [Fused reductions]): register `reg` reduced
/// over its trailing `inner` elements (all of them for a full reduction) into the node's
/// last output, of shape `sizes` (with or without the kept dims, as the replaced op
/// returned). Sums accumulate in double.
enum class FusedReduce : uint8_t { None, Sum, Mean, Amax, Amin };

EMBER_API const char* fused_reduce_name(FusedReduce op);

struct FusedReduction {
  FusedReduce op = FusedReduce::None;
  int reg = -1;
  int64_t inner = 1;
  std::vector<int64_t> sizes;
};

/// A fused chain over one output shape and one dtype (float32 or float64). Registers
/// 0..num_inputs-1 hold the inputs (broadcast to `sizes`); the instructions write the
/// others, each once.
struct EMBER_API FusedProgram {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  /// The outputs' dims in memory order, outermost first, when they are dense but not
  /// row-major (a chain over transposed inputs, whose results follow their layout); empty
  /// for row-major. The tiles then walk the outputs' memory order (Note [Fused tiles]).
  std::vector<int64_t> perm;
  int num_inputs = 0;
  int num_registers = 0;
  std::vector<FusedInstr> code;
  std::vector<int> outputs;  ///< the registers returned, in the node's output order
  /// An optional reduction of one register; its result is the last register
  /// (num_registers - 1, which no instruction writes) and the last output.
  FusedReduction reduction;
  /// The ops it replaced, over registers (Slot values are register numbers): run through
  /// the dispatcher instead when autograd must record the call. One per instruction, and
  /// the reduction's op last when there is one.
  std::vector<Node> unfused;

  bool reduces() const { return reduction.op != FusedReduce::None; }
  /// How many outputs the tile loop writes at the program's sizes (all but the reduction's).
  size_t elementwise_outputs() const { return outputs.size() - (reduces() ? 1 : 0); }

  /// One instruction per line: "r3 = exp(r2)".
  std::string str() const;
};

}  // namespace ember::jit
