#pragma once
/// How a tensor's elements are laid out in memory.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace ember {

/// A tensor's memory layout; each non-strided layout has backend keys of its own (the
/// compressed layouts sparse_csr and sparse_csc share SparseCsrCPU, as in PyTorch).
enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn, SparseCsc };

// libtorch's layout constants (torch::kStrided, ...).
inline constexpr Layout kStrided = Layout::Strided;
inline constexpr Layout kSparse = Layout::Sparse;
inline constexpr Layout kSparseCsr = Layout::SparseCsr;
inline constexpr Layout kMkldnn = Layout::Mkldnn;
inline constexpr Layout kSparseCsc = Layout::SparseCsc;

/// The number of Layout values.
inline constexpr int kNumLayouts = 5;

/// The name in schema defaults (`layout=strided`) and in Python (`ember.strided`):
/// "strided", "sparse_coo", "sparse_csr", "_mkldnn", "sparse_csc".
constexpr const char* layout_short_name(Layout l) {
  switch (l) {
    case Layout::Strided: return "strided";
    case Layout::Sparse: return "sparse_coo";
    case Layout::SparseCsr: return "sparse_csr";
    case Layout::Mkldnn: return "_mkldnn";
    case Layout::SparseCsc: return "sparse_csc";
  }
  return "invalid";
}

/// PyTorch's name, for messages: "torch." and the short name ("torch.strided", ...).
constexpr const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Strided: return "torch.strided";
    case Layout::Sparse: return "torch.sparse_coo";
    case Layout::SparseCsr: return "torch.sparse_csr";
    case Layout::Mkldnn: return "torch._mkldnn";
    case Layout::SparseCsc: return "torch.sparse_csc";
  }
  return "invalid";
}

/// The layout layout_short_name spells `name`, if any.
constexpr std::optional<Layout> parse_layout(std::string_view name) {
  for (int i = 0; i < kNumLayouts; ++i) {
    const auto l = static_cast<Layout>(i);
    if (name == layout_short_name(l)) return l;
  }
  return std::nullopt;
}

inline std::ostream& operator<<(std::ostream& os, Layout l) { return os << layout_name(l); }

}  // namespace ember
