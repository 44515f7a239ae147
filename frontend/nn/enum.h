#pragma once
/// libtorch's enum tags (torch::kMean, torch::kReLU, torch::kFanIn, ...): each is a value of
/// its own empty type, and an option that accepts several holds a std::variant of them.

#include <string>
#include <variant>

#include "c10/core/Reduction.h"

namespace ember {

namespace enumtype {
#define EMBER_ENUM_TAG(Name, text)                            \
  struct Name {                                               \
    static constexpr const char* str() { return text; }       \
  };
EMBER_ENUM_TAG(kLinear, "kLinear")
EMBER_ENUM_TAG(kConv1D, "kConv1D")
EMBER_ENUM_TAG(kConv2D, "kConv2D")
EMBER_ENUM_TAG(kConv3D, "kConv3D")
EMBER_ENUM_TAG(kConvTranspose1D, "kConvTranspose1D")
EMBER_ENUM_TAG(kConvTranspose2D, "kConvTranspose2D")
EMBER_ENUM_TAG(kConvTranspose3D, "kConvTranspose3D")
EMBER_ENUM_TAG(kSigmoid, "kSigmoid")
EMBER_ENUM_TAG(kTanh, "kTanh")
EMBER_ENUM_TAG(kReLU, "kReLU")
EMBER_ENUM_TAG(kLeakyReLU, "kLeakyReLU")
EMBER_ENUM_TAG(kGELU, "kGELU")
EMBER_ENUM_TAG(kSiLU, "kSiLU")
EMBER_ENUM_TAG(kSELU, "kSELU")
EMBER_ENUM_TAG(kFanIn, "kFanIn")
EMBER_ENUM_TAG(kFanOut, "kFanOut")
EMBER_ENUM_TAG(kNone, "kNone")
EMBER_ENUM_TAG(kMean, "kMean")
EMBER_ENUM_TAG(kSum, "kSum")
EMBER_ENUM_TAG(kZeros, "kZeros")
EMBER_ENUM_TAG(kConstant, "kConstant")
EMBER_ENUM_TAG(kReflect, "kReflect")
EMBER_ENUM_TAG(kReplicate, "kReplicate")
EMBER_ENUM_TAG(kCircular, "kCircular")
EMBER_ENUM_TAG(kValid, "kValid")
EMBER_ENUM_TAG(kSame, "kSame")
EMBER_ENUM_TAG(kNearest, "kNearest")
EMBER_ENUM_TAG(kNearestExact, "kNearestExact")
EMBER_ENUM_TAG(kBilinear, "kBilinear")
EMBER_ENUM_TAG(kTrilinear, "kTrilinear")
EMBER_ENUM_TAG(kBicubic, "kBicubic")
EMBER_ENUM_TAG(kArea, "kArea")
EMBER_ENUM_TAG(kLSTM, "kLSTM")
EMBER_ENUM_TAG(kGRU, "kGRU")
EMBER_ENUM_TAG(kRNN_TANH, "kRNN_TANH")
EMBER_ENUM_TAG(kRNN_RELU, "kRNN_RELU")
#undef EMBER_ENUM_TAG
}  // namespace enumtype

inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
inline constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
inline constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kGELU kGELU{};
inline constexpr enumtype::kSiLU kSiLU{};
inline constexpr enumtype::kSELU kSELU{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};
inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kSame kSame{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kNearestExact kNearestExact{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kArea kArea{};

/// The name of the tag a variant holds ("kMean").
template <class... Tags>
std::string get_enum_name(const std::variant<Tags...>& v) {
  return std::visit([](const auto& tag) { return std::string(tag.str()); }, v);
}

/// A loss's reduction option: kNone, kMean or kSum.
using LossReduction = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

/// The int the loss ops take (Reduction::None/Mean/Sum) for a reduction option.
inline int64_t reduction_enum(const LossReduction& r) {
  if (std::holds_alternative<enumtype::kNone>(r)) return Reduction::None;
  if (std::holds_alternative<enumtype::kMean>(r)) return Reduction::Mean;
  return Reduction::Sum;
}

}  // namespace ember
