// einsum: a contraction planner that maps an equation onto diagonals, sums and batched
// matrix products (composite: autograd comes from the ops it calls).
//
// Note [einsum plan]: every label (and each dimension the ellipsis covers, aligned from the
// right) gets one position in a common dimension order. Each operand is brought to that
// order: repeated labels become a diagonal, missing labels a size-1 dimension. Operands are
// then contracted left to right. For a pair, a dimension present (size != 1) in both is a
// batch dimension if a later operand or the output needs it, else it is contracted; a
// dimension present in one of them only is kept if needed later, else summed first. The
// pair becomes one bmm of [batch, kept-in-a, contracted] by [batch, contracted, kept-in-b].
// What remains is summed over the dimensions the output lacks and permuted to its order.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "c10/util/Exception.h"
#include "ember/generated/ops/bmm.h"
#include "ember/generated/ops/eq.h"
#include "ember/generated/ops/full.h"
#include "ember/generated/ops/full_native.h"
#include "ember/generated/ops/prod.h"
#include "ember/generated/ops/sum.h"

namespace ember::native {
namespace {

constexpr int kLetters = 52;
constexpr int kEllipsis = -1;

int label_of(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  EMBER_THROW(Error, "einsum(): invalid subscript given: '", std::string(1, c), "' (subscripts "
              "must be letters in [a-zA-Z])");
}

// The labels of one term ("ij...k"), kEllipsis for "...".
std::vector<int> parse_term(const std::string& term, bool is_output) {
  std::vector<int> out;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(!ellipsis, "einsum(): found more than one ellipsis ('...') in a ",
                        is_output ? "output" : "operand", " subscript");
      EMBER_CHECK(i + 2 < term.size() + 0 && term[i + 1] == '.' && term[i + 2] == '.',
                        "einsum(): found '.' that is not part of any ellipsis ('...')");
      ellipsis = true;
      out.push_back(kEllipsis);
      i += 2;
      continue;
    }
    out.push_back(label_of(c));
  }
  return out;
}

// t summed over dims, kept as size 1, in t's dtype.
Tensor sum_dims(const Tensor& t, const std::vector<int64_t>& dims) {
  if (dims.empty()) return t;
  return ember::sum(t, IntArrayRef(dims), /*keepdim=*/true, t.scalar_type());
}

}  // namespace

Tensor einsum(std::string_view equation, TensorList tensors, std::optional<IntArrayRef> path) {
  (void)path;  // the order is fixed: left to right (Note [einsum plan])
  EMBER_CHECK(!tensors.empty(), "einsum(): must provide at least one operand");
  const std::string eq(equation);
  const size_t arrow = eq.find("->");
  const std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos
                                                                            : comma - start), false));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const size_t n = tensors.size();
  EMBER_CHECK(terms.size() == n, "einsum(): ", terms.size() > n ? "fewer" : "more", " operands were provided than "
              "specified in the equation (", terms.size(), " operand subscripts, ", n, " operands)");
  const ScalarType dt = tensors[0].scalar_type();
  // Ellipsis dims per operand, and the most of any operand.
  int64_t n_ell = 0;
  std::vector<int64_t> ell(n, 0);
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(tensors[i].scalar_type() == dt, "einsum(): expected all operands to have the same "
                "dtype, but operand 0 is ", dt, " and operand ", i, " is ", tensors[i].scalar_type());
    const int64_t labels = static_cast<int64_t>(std::count_if(terms[i].begin(), terms[i].end(),
                                                              [](int l) { return l != kEllipsis; }));
    const bool has_ell = labels != static_cast<int64_t>(terms[i].size());
    const int64_t nd = tensors[i].dim();
    EMBER_CHECK(has_ell ? nd >= labels : nd == labels, "einsum(): the number of subscripts in the "
                "equation (", labels, ") does not match the number of dimensions (", nd,
                ") for operand ", i, has_ell ? "" : " and no ellipsis was given");
    ell[i] = has_ell ? nd - labels : 0;
    n_ell = std::max(n_ell, ell[i]);
  }
  // Common positions: ellipsis dims 0..n_ell-1, then labels n_ell + label.
  int total = static_cast<int>(n_ell) + kLetters;
  std::vector<int> count(total, 0);  // operands using each position
  std::vector<int64_t> size(total, 1);
  std::vector<std::vector<int>> pos_of(n);  // per operand, the position of each dim
  for (size_t i = 0; i < n; ++i) {
    for (int l : terms[i]) {
      if (l == kEllipsis) {
        for (int64_t e = 0; e < ell[i]; ++e) pos_of[i].push_back(static_cast<int>(n_ell - ell[i] + e));
      } else {
        pos_of[i].push_back(static_cast<int>(n_ell) + l);
      }
    }
  }
  // The output positions.
  std::vector<int> out_pos;
  if (arrow != std::string::npos) {
    std::array<bool, kLetters> seen{};
    for (int l : parse_term(eq.substr(arrow + 2), true)) {
      if (l == kEllipsis) {
        for (int64_t e = 0; e < n_ell; ++e) out_pos.push_back(static_cast<int>(e));
        continue;
      }
      EMBER_CHECK(!seen[l], "einsum(): output subscript ", static_cast<char>(l < 26 ? 'a' + l : 'A' + l - 26),
                        " appears more than once in the output");
      seen[l] = true;
      bool in_input = false;
      for (const auto& t : terms) in_input = in_input || std::find(t.begin(), t.end(), l) != t.end();
      EMBER_CHECK(in_input, "einsum(): output subscript ", static_cast<char>(l < 26 ? 'a' + l : 'A' + l - 26),
                        " does not appear in the equation for any input operand");
      out_pos.push_back(static_cast<int>(n_ell) + l);
    }
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, alphabetically.
    std::array<int, kLetters> uses{};
    for (const auto& t : terms) {
      for (int l : t) {
        if (l != kEllipsis) ++uses[l];
      }
    }
    for (int64_t e = 0; e < n_ell; ++e) out_pos.push_back(static_cast<int>(e));
    for (int l = 0; l < kLetters; ++l) {
      if (uses[l] == 1) out_pos.push_back(static_cast<int>(n_ell) + l);
    }
  }
  // Only the positions in use stay, renumbered in order (a tensor keeps one dimension each).
  {
    std::vector<int> remap(total, -1);
    for (const auto& pos : pos_of) {
      for (int p : pos) remap[p] = 0;
    }
    int used = 0;
    for (int p = 0; p < total; ++p) {
      if (remap[p] == 0) remap[p] = used++;
    }
    for (auto& pos : pos_of) {
      for (int& p : pos) p = remap[p];
    }
    for (int& p : out_pos) p = remap[p];
    total = used;
    count.assign(total, 0);
    size.assign(total, 1);
  }
  // Each operand in the common order (diagonals for repeated labels), and the size of each
  // position (equal, or 1 broadcast).
  std::vector<Tensor> ops(n);
  for (size_t i = 0; i < n; ++i) {
    Tensor t = tensors[i];
    std::vector<int> pos = pos_of[i];
    for (size_t a = 0; a < pos.size(); ++a) {
      for (size_t b = a + 1; b < pos.size();) {
        if (pos[b] != pos[a]) {
          ++b;
          continue;
        }
        EMBER_CHECK(t.sizes()[a] == t.sizes()[b], "einsum(): a subscript is repeated for operand ", i,
                    " but the sizes don't match, ", t.sizes()[a], " != ", t.sizes()[b]);
        // The diagonal replaces dims a and b by one at the end; move it back to a.
        t = t.diagonal(0, static_cast<int64_t>(a), static_cast<int64_t>(b)).movedim(-1, static_cast<int64_t>(a));
        pos.erase(pos.begin() + static_cast<std::ptrdiff_t>(b));
      }
    }
    std::vector<int64_t> perm(pos.size());
    for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
    std::sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return pos[x] < pos[y]; });
    t = t.permute(perm);
    std::vector<int64_t> full(total, 1);
    for (size_t d = 0; d < perm.size(); ++d) {
      const int p = pos[perm[d]];
      const int64_t s = t.sizes()[d];
      full[p] = s;
      ++count[p];
      EMBER_CHECK(size[p] == 1 || s == 1 || size[p] == s, "einsum(): operands do not broadcast with "
                  "remapped shapes (original->remapped): size ", s, " of operand ", i,
                  " against size ", size[p], " at the same subscript");
      if (s != 1) size[p] = s;
    }
    ops[i] = t.reshape(full);
  }
  std::vector<bool> in_output(total, false);
  for (int p : out_pos) in_output[p] = true;
  // Contract left to right (Note [einsum plan]).
  Tensor acc = ops[0];
  for (size_t i = 1; i < n; ++i) {
    std::vector<bool> later(in_output);
    for (size_t j = i + 1; j < n; ++j) {
      for (int p = 0; p < total; ++p) later[p] = later[p] || ops[j].sizes()[p] != 1;
    }
    Tensor a = acc, b = ops[i];
    std::vector<int64_t> sum_a, sum_b, batch, a_only, b_only, contract, rest;
    for (int p = 0; p < total; ++p) {
      const bool pa = a.sizes()[p] != 1, pb = b.sizes()[p] != 1;
      if (pa && pb) (later[p] ? batch : contract).push_back(p);
      else if (pa) (later[p] ? a_only : sum_a).push_back(p);
      else if (pb) (later[p] ? b_only : sum_b).push_back(p);
      else rest.push_back(p);
    }
    a = sum_dims(a, sum_a);
    b = sum_dims(b, sum_b);
    rest.insert(rest.end(), sum_a.begin(), sum_a.end());
    rest.insert(rest.end(), sum_b.begin(), sum_b.end());
    auto prod = [&](const std::vector<int64_t>& dims, const Tensor& t) {
      int64_t r = 1;
      for (int64_t d : dims) r *= t.sizes()[d];
      return r;
    };
    const int64_t nb = prod(batch, a), m = prod(a_only, a), k = prod(contract, a), nn = prod(b_only, b);
    std::vector<int64_t> pa(batch), pb(batch);
    pa.insert(pa.end(), a_only.begin(), a_only.end());
    pa.insert(pa.end(), contract.begin(), contract.end());
    pa.insert(pa.end(), b_only.begin(), b_only.end());
    pa.insert(pa.end(), rest.begin(), rest.end());
    pb.insert(pb.end(), contract.begin(), contract.end());
    pb.insert(pb.end(), b_only.begin(), b_only.end());
    pb.insert(pb.end(), a_only.begin(), a_only.end());
    pb.insert(pb.end(), rest.begin(), rest.end());
    const Tensor a3 = a.permute(pa).reshape({nb, m, k});
    const Tensor b3 = b.permute(pb).reshape({nb, k, nn});
    // The product's dims in order [batch, a_only, b_only, the rest (size 1)], put back.
    std::vector<int64_t> order(batch), shape;
    order.insert(order.end(), a_only.begin(), a_only.end());
    order.insert(order.end(), b_only.begin(), b_only.end());
    order.insert(order.end(), contract.begin(), contract.end());
    order.insert(order.end(), rest.begin(), rest.end());
    for (int64_t d : order) {
      const bool kept = std::find(contract.begin(), contract.end(), d) == contract.end();
      shape.push_back(!kept ? 1 : (a.sizes()[d] != 1 ? a.sizes()[d] : b.sizes()[d]));
    }
    std::vector<int64_t> inverse(total);
    for (size_t j = 0; j < order.size(); ++j) inverse[order[j]] = static_cast<int64_t>(j);
    acc = ember::bmm(a3, b3).reshape(shape).permute(inverse);
  }
  // Sum what the output lacks, then the output's order and shape.
  std::vector<int64_t> drop, out_shape;
  for (int p = 0; p < total; ++p) {
    if (!in_output[p] && acc.sizes()[p] != 1) drop.push_back(p);
  }
  acc = sum_dims(acc, drop);
  std::vector<int64_t> perm(out_pos.begin(), out_pos.end());
  for (int p = 0; p < total; ++p) {
    if (!in_output[p]) perm.push_back(p);
  }
  for (int p : out_pos) out_shape.push_back(acc.sizes()[p]);
  return acc.permute(perm).reshape(out_shape);
}

}  // namespace ember::native
