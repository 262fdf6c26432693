# Sourced by perfit's job scripts (fit.sbatch, batch.sbatch, array.sbatch); keep it beside them.
#
# perfit_step ARGS...: runs `srun --mpi=pmix ${PERFIT:-perfit} ARGS` as the job's step and waits
# for it. USR1 (sent by Slurm --signal=B:USR1@T before the time limit) or TERM (scancel,
# preemption) is forwarded to the ranks through srun: perfit stops at the next generation,
# checkpoints and exits 75. Then, and only then, the job requeues itself (it needs
# #SBATCH --requeue); the requeued job starts the script again, which resumes from the
# checkpoint. Any other exit code is the job's: 0 COMPLETED, else FAILED, never requeued.
PERFIT="${PERFIT:-perfit}"
PERFIT_INTERRUPTED=75

perfit_log() { echo "$(date -u +%FT%TZ) [job ${SLURM_JOB_ID}] $*"; }

perfit_step() {
  perfit_log "restart ${SLURM_RESTART_COUNT:-0} on ${SLURM_JOB_NODELIST}, ${SLURM_NTASKS} tasks: $PERFIT $*"
  # Debian's Open MPI has PMIx but no PMI-2; with another MPI use its srun --mpi plugin.
  srun --mpi=pmix "$PERFIT" "$@" &
  local step=$! rc=0
  trap 'perfit_log "signal: asking perfit to checkpoint"; kill -USR1 '"$step"' 2>/dev/null' USR1 TERM
  while :; do
    wait "$step"; rc=$?
    kill -0 "$step" 2>/dev/null || break   # wait was cut short by a signal: perfit still runs
  done
  trap - USR1 TERM
  if [ "$rc" -eq "$PERFIT_INTERRUPTED" ]; then
    perfit_log "perfit checkpointed (exit $rc): requeueing, the next run resumes"
    scontrol requeue "$SLURM_JOB_ID"
  else
    perfit_log "perfit exited with $rc"
  fi
  return "$rc"
}
