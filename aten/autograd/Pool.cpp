#include "aten/autograd/Pool.h"

#include <vector>

namespace ember::autograd {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPoolOn = false;
#else
constexpr bool kPoolOn = true;
#endif
constexpr size_t kClassBytes = 16;
constexpr size_t kClasses = 32;  // blocks up to 512 bytes
constexpr size_t kPoolKeep = 512;

struct Lists {
  std::vector<void*> free[kClasses];
  ~Lists() {
    for (auto& list : free) {
      for (void* p : list) ::operator delete(p);
    }
  }
};

constinit thread_local Lists* tls_lists __attribute__((tls_model("initial-exec"))) = nullptr;
// Set once the thread's lists were freed (thread exit): blocks go back to the heap.
constinit thread_local bool tls_lists_gone __attribute__((tls_model("initial-exec"))) = false;

struct ListsOwner {
  ~ListsOwner() {
    delete tls_lists;
    tls_lists = nullptr;
    tls_lists_gone = true;
  }
};

Lists* lists() {
  if (!tls_lists) {
    if (tls_lists_gone) return nullptr;
    thread_local ListsOwner owner;
    (void)owner;
    tls_lists = new Lists();
  }
  return tls_lists;
}

size_t class_of(size_t size) { return (size + kClassBytes - 1) / kClassBytes - 1; }

}  // namespace

void* pool_allocate(size_t size) {
  if (kPoolOn && size > 0 && size <= kClassBytes * kClasses) {
    const size_t c = class_of(size);
    if (Lists* l = tls_lists; l && !l->free[c].empty()) {
      void* p = l->free[c].back();
      l->free[c].pop_back();
      return p;
    }
    return ::operator new((c + 1) * kClassBytes);
  }
  return ::operator new(size);
}

void pool_free(void* p, size_t size) noexcept {
  if (kPoolOn && size > 0 && size <= kClassBytes * kClasses) {
    if (Lists* l = lists()) {
      auto& list = l->free[class_of(size)];
      if (list.size() < kPoolKeep) {
        list.push_back(p);
        return;
      }
    }
  }
  ::operator delete(p);
}

}  // namespace ember::autograd
