// openreg (examples/openreg), built against the installed package, loaded into a program
// built against it too (scripts/check_install): a linear layer with relu and its gradient
// on openreg:0 against the same on the CPU; the fallback's calls; an unload that leaves the
// dispatcher as before. Prints "openreg: ok" and exits 0 when all agree.
//   openreg_run <path to libember_openreg.so>
#include <cmath>
#include <cstdio>

#include <ember/ember.h>

#include "aten/BackendFallback.h"
#include "c10/backend/Backend.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: openreg_run <libember_openreg.so>\n");
    return 2;
  }
  try {
    const ember::DeviceType type = ember::backend::load(argv[1]);
    const ember::Device dev(type, 0);
    int failures = 0;
    {
      ember::manual_seed(0);
      ember::Tensor x = ember::randn({4, 3});
      ember::Tensor w = ember::randn({3, 5}).requires_grad_(true);
      ember::Tensor wd = w.detach().to(dev).requires_grad_(true);
      ember::Tensor loss = ember::mm(x, w).relu().sum();
      ember::Tensor loss_d = ember::mm(x.to(dev), wd).relu().sum();
      loss.backward();
      loss_d.backward();
      const double a = loss.item().toDouble(), b = loss_d.cpu().item().toDouble();
      if (std::fabs(a - b) > 1e-4 * (1 + std::fabs(a))) {
        std::printf("openreg: loss %.7g on the device, %.7g on the CPU\n", b, a);
        ++failures;
      }
      if (wd.grad().device() != dev || !wd.grad().cpu().allclose(w.grad(), 1e-4, 1e-5)) {
        std::printf("openreg: the weight's gradient differs from the CPU's\n");
        ++failures;
      }
    }
    int64_t calls = 0;
    const auto stats = ember::backend::fallback_stats();  // (a named map: the loop reads into it)
    for (const auto& [op, n] : stats.at(ember::device_type_name(type))) calls += n;
    ember::backend::unload(ember::device_type_name(type));
    std::printf("openreg: %s (%lld calls through the CPU fallback)\n", failures ? "FAILED" : "ok",
                static_cast<long long>(calls));
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("openreg: FAILED: %s\n", e.what());
    return 1;
  }
}
