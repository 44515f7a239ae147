#pragma once
/// How a tensor's elements are laid out in memory.

#include <cstdint>
#include <ostream>

namespace ember {

/// A tensor's memory layout; each non-strided layout has backend keys of its own.
enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn };

/// PyTorch's name: "torch.strided", "torch.sparse_coo", "torch.sparse_csr", "torch._mkldnn".
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Strided: return "torch.strided";
    case Layout::Sparse: return "torch.sparse_coo";
    case Layout::SparseCsr: return "torch.sparse_csr";
    case Layout::Mkldnn: return "torch._mkldnn";
  }
  return "invalid";
}

inline std::ostream& operator<<(std::ostream& os, Layout l) { return os << layout_name(l); }

}  // namespace ember
