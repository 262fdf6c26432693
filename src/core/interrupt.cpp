#include "perfit/core/interrupt.hpp"

#include <signal.h>

#include <atomic>

namespace perfit {

namespace {
// An atomic, not a volatile sig_atomic_t: the flag is read by every thread (a rank's threads
// selecting sets check it before each), and a lock-free atomic is safe in a handler too.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_graceful{0};
void (*g_cleanup)() = nullptr;

extern "C" void on_signal(int sig) {
  // Outside a graceful scope a signal ends the process now. Inside one, a second SIGINT does
  // (an impatient Ctrl-C), but a repeated SIGTERM or SIGUSR1 does not: a batch system may
  // deliver the same request twice (Slurm signals the tasks and the job script, which
  // forwards it) and the checkpoint must still be written; Slurm's SIGKILL follows anyway.
  if (g_graceful.load() == 0 || (g_signal != 0 && sig == SIGINT)) {
    if (g_cleanup) g_cleanup();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}
}  // namespace

void install_interrupt_handlers(void (*cleanup)()) {
  g_cleanup = cleanup;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGTERM, SIGINT, SIGUSR1}) sigaction(sig, &sa, nullptr);
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }
bool interrupted() { return g_signal.load(std::memory_order_relaxed) != 0; }

GracefulScope::GracefulScope() { ++g_graceful; }
GracefulScope::~GracefulScope() { --g_graceful; }

}  // namespace perfit
