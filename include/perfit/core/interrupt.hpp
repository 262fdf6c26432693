// SIGTERM, SIGINT and SIGUSR1 (Slurm's time limit, preemption, scancel, Ctrl-C). While a
// graceful scope is open (a fit's generations), the handler only sets a flag that the fit
// checks once per generation: it then stops, checkpoints and exits with kInterruptedExit.
// Outside one (or at a second SIGINT) the handler runs the registered fatal cleanup (removing
// temporary output files) and ends the process as the signal would have; a repeated SIGTERM
// or SIGUSR1 only repeats the request.
#pragma once

namespace perfit {

// "Interrupted, resumable": neither success nor an error class (sysexits' EX_TEMPFAIL).
inline constexpr int kInterruptedExit = 75;

// Installs the handlers (idempotent). cleanup must be async-signal-safe.
void install_interrupt_handlers(void (*cleanup)());

// The signal number received since the process started (0: none).
int interrupt_signal();
bool interrupted();

class GracefulScope {
 public:
  GracefulScope();
  ~GracefulScope();
  GracefulScope(const GracefulScope&) = delete;
  GracefulScope& operator=(const GracefulScope&) = delete;
};

}  // namespace perfit
