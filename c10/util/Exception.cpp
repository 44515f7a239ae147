#include "c10/util/Exception.h"

namespace ember {

Error::Error(std::string message, const char* file, int line)
    : message_(std::move(message)), where_(str(file, ":", line)) {}

}  // namespace ember
