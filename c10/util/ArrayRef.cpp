#include "c10/util/ArrayRef.h"

#include <sstream>

namespace ember {

std::string shape_str(ArrayRef<int64_t> sizes, ShapeStyle style) {
  if (style == ShapeStyle::List) {
    std::ostringstream os;
    os << sizes;
    return os.str();
  }
  const char* sep = style == ShapeStyle::Times ? "x" : ", ";
  std::string out = style == ShapeStyle::Tuple ? "(" : "";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? sep : "") + std::to_string(sizes[i]);
  if (style == ShapeStyle::Times) return out.empty() ? "()" : out;
  return out + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace ember
