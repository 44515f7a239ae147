// The fused elementwise program (Fusion.h): names and printing.
#include "aten/tracing/Fusion.h"

#include <sstream>

namespace ember::jit {

const char* fused_op_name(FusedOp op) {
  switch (op) {
    case FusedOp::Neg: return "neg";
    case FusedOp::Abs: return "abs";
    case FusedOp::Relu: return "relu";
    case FusedOp::Exp: return "exp";
    case FusedOp::Expm1: return "expm1";
    case FusedOp::Log: return "log";
    case FusedOp::Log1p: return "log1p";
    case FusedOp::Log2: return "log2";
    case FusedOp::Sqrt: return "sqrt";
    case FusedOp::Rsqrt: return "rsqrt";
    case FusedOp::Sin: return "sin";
    case FusedOp::Cos: return "cos";
    case FusedOp::Tanh: return "tanh";
    case FusedOp::Sigmoid: return "sigmoid";
    case FusedOp::Erf: return "erf";
    case FusedOp::Gelu: return "gelu";
    case FusedOp::GeluTanh: return "gelu_tanh";
    case FusedOp::Silu: return "silu";
    case FusedOp::Reciprocal: return "reciprocal";
    case FusedOp::Square: return "square";
    case FusedOp::Add: return "add";
    case FusedOp::Sub: return "sub";
    case FusedOp::Mul: return "mul";
    case FusedOp::Div: return "div";
    case FusedOp::Maximum: return "maximum";
    case FusedOp::Minimum: return "minimum";
    case FusedOp::AddScalar: return "add_scalar";
    case FusedOp::SubScalar: return "sub_scalar";
    case FusedOp::MulScalar: return "mul_scalar";
    case FusedOp::DivScalar: return "div_scalar";
    case FusedOp::RSubScalar: return "rsub_scalar";
    case FusedOp::Clamp: return "clamp";
    case FusedOp::Where: return "where";
    case FusedOp::Cast: return "cast";
  }
  return "?";
}

const char* fused_reduce_name(FusedReduce op) {
  switch (op) {
    case FusedReduce::None: return "none";
    case FusedReduce::Sum: return "sum";
    case FusedReduce::Mean: return "mean";
    case FusedReduce::Amax: return "amax";
    case FusedReduce::Amin: return "amin";
  }
  return "?";
}

std::string FusedProgram::str() const {
  std::ostringstream os;
  if (!perm.empty()) {
    os << "dims in memory order: [";
    for (size_t i = 0; i < perm.size(); ++i) os << (i ? ", " : "") << perm[i];
    os << "]\n";
  }
  for (const FusedInstr& in : code) {
    os << 'r' << in.dst << " = " << fused_op_name(in.op) << '(';
    const char* sep = "";
    for (int r : {in.c, in.a, in.b}) {
      if (r >= 0) {
        os << sep << 'r' << r;
        sep = ", ";
      }
    }
    switch (in.op) {
      case FusedOp::AddScalar: case FusedOp::SubScalar: case FusedOp::MulScalar:
      case FusedOp::DivScalar: case FusedOp::RSubScalar:
        os << sep << in.s0;
        break;
      case FusedOp::Clamp: os << sep << in.s0 << ", " << in.s1; break;
      default: break;
    }
    if ((in.op == FusedOp::Add || in.op == FusedOp::Sub || in.op == FusedOp::AddScalar ||
         in.op == FusedOp::SubScalar) && in.s1 != 1) {
      os << ", alpha=" << in.s1;
    }
    os << ")\n";
  }
  if (reduces()) {
    os << 'r' << num_registers - 1 << " = " << fused_reduce_name(reduction.op) << "(r" << reduction.reg
       << ", inner=" << reduction.inner << ")\n";
  }
  os << "return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", r" : "r") << outputs[i];
  os << ")";
  return os.str();
}

}  // namespace ember::jit
