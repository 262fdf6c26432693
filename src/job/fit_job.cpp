#include "perfit/job/fit_job.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "fit_setup.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/interrupt.hpp"
#include "perfit/core/text.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/data/row_validity.hpp"
#include "perfit/data/splits.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/fit/run_config.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/job/fit_checkpoint.hpp"
#include "perfit/job/fit_progress.hpp"
#include "perfit/job/fit_result.hpp"
#include "perfit/job/fitted_rows.hpp"
#include "perfit/job/joint_fit.hpp"
#include "perfit/job/measured_range.hpp"
#include "perfit/job/result_report.hpp"
#include "perfit/model/grouped_model.hpp"
#include "perfit/mpi/agreement.hpp"
#include "perfit/mpi/communicator.hpp"
#include "streamed_rows.hpp"

namespace perfit::job {

namespace {

// Rows with NaN/inf in a column the fit reads: refused, or dropped with drop_invalid (the
// caller drops them). Counts are summed over the island's slices, so every rank takes the same
// decision. Returns the island's count.
std::size_t agree_on_invalid(const FitSetup& s, const data::RowValidity& v, MPI_Comm island,
                             const std::function<void(std::function<void()>)>& agreed) {
  std::vector<double> counts(v.invalid.begin(), v.invalid.end());
  counts.push_back(static_cast<double>(v.rows_invalid));
  if (island != MPI_COMM_NULL) {
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()),
                             MPI_DOUBLE, MPI_SUM, island),
               "MPI_Allreduce (invalid rows)");
  }
  data::RowValidity total = v;
  for (std::size_t i = 0; i < v.invalid.size(); ++i)
    total.invalid[i] = static_cast<std::size_t>(counts[i]);
  const auto bad_rows = static_cast<std::size_t>(counts.back());
  const fit::RunConfig& c = s.cfg;
  agreed([&] {
    if (bad_rows > 0 && !c.drop_invalid) {
      throw DataError("'" + c.data + "' set '" + c.set +
                      "' has NaN or inf values the model needs: " + describe_invalid(total) +
                      ". Fix the data, or drop those rows with "
                      "--drop-invalid (config key drop_invalid: true)");
    }
    if (bad_rows > 0 && bad_rows == s.info.rows) {
      throw DataError("'" + c.data + "' set '" + c.set +
                      "': every row has a NaN or inf value the "
                      "model needs (" +
                      describe_invalid(total) + "); nothing is left to fit");
    }
  });
  if (bad_rows > 0) {
    spdlog::info("dropped {} of {} rows with NaN or inf ({}; drop_invalid)", bad_rows, s.info.rows,
                 describe_invalid(total));
  }
  return bad_rows;
}

// Checkpointing and resume: world rank 0 of the job writes and has read the checkpoint; the
// others learn whether this run resumes.
void add_checkpointing(island::RunHooks& hooks, FitSetup& s, int rank, MPI_Comm comm, bool parallel,
                       bool periodic) {
  const fit::RunConfig& cfg = s.cfg;
  if (!cfg.checkpoint_dir.empty()) {
    hooks.checkpoint_every = periodic ? cfg.checkpoint_every : 0;
    hooks.checkpoint_on_interrupt = true;
    if (rank == 0) add_checkpoint_hook(hooks, s.header, cfg.checkpoint_dir);
  }
  int resume = s.resume_from ? 1 : 0;
  if (parallel) mpi::check(MPI_Bcast(&resume, 1, MPI_INT, 0, comm), "MPI_Bcast (resume)");
  hooks.resume = resume != 0;
  if (s.resume_from) {
    hooks.resume_islands = std::move(s.resume_from->islands);
    const io::CheckpointProgress& done = s.resume_from->job;
    hooks.resume_job = {done.epochs_done, done.history, done.seconds};
  }
}

// Who runs the job and how its set-up checks are agreed on.
struct Ranks {
  MPI_Comm comm = MPI_COMM_NULL;
  int size = 1, rank = 0;
  bool parallel() const { return size > 1; }
  // Under MPI every check before the first collective is agreed on: one message, every rank
  // of the job stops with its code.
  void agreed(const std::function<void()>& fn) const {
    if (parallel()) {
      mpi::all_or_none(comm, fn);
    } else {
      fn();
    }
  }
};

// This rank's slice of the rows, NaN/inf rows refused or dropped, checked by binding an evaluator.
std::shared_ptr<data::MeasurementTable> load_rows(const Ranks& r, FitSetup& s,
                                                  const island::IslandLayout& layout,
                                                  std::size_t& dropped) {
  const fit::RunConfig& cfg = s.cfg;
  // Not a structured binding: lambdas cannot capture those before clang 16.
  const auto slice = layout.row_slice(s.info.rows);
  auto table = s.given ? s.given : std::make_shared<data::MeasurementTable>();
  if (s.given &&
      slice.second - slice.first < s.given->rows()) {  // several sets over ranks sharing an island
    std::vector<bool> mine(s.given->rows(), false);
    std::fill(mine.begin() + static_cast<std::ptrdiff_t>(slice.first),
              mine.begin() + static_cast<std::ptrdiff_t>(slice.second), true);
    table = std::make_shared<data::MeasurementTable>(data::select_rows(*s.given, mine));
  }
  const auto agreed = [&r](const std::function<void()>& fn) { r.agreed(fn); };
  const MPI_Comm island = layout.island_size > 1 ? layout.island_comm.get() : MPI_COMM_NULL;
  // A large share is compressed as it is read (streamed_rows.hpp), on every rank of the island
  // or none; rows too distinct to compress on any rank: every rank reads its share whole.
  const auto island_says = [&](int mine, MPI_Op op, const char* what) {
    if (island != MPI_COMM_NULL)
      mpi::check(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, op, island), what);
    return mine != 0;
  };
  StreamedSlice st;
  const bool stream =
      island_says(streams(s, slice) ? 1 : 0, MPI_MIN, "MPI_Allreduce (streamed rows)");
  if (stream) agreed([&] { st = stream_slice(s, slice, r.rank == 0); });
  if (stream && !island_says(st.in_memory ? 1 : 0, MPI_MAX, "MPI_Allreduce (rows in memory)")) {
    dropped = agree_on_invalid(s, st.invalid, island, agreed);
    agreed([&] {
      if (!st.error.empty()) throw DataError(st.error);
    });
    s.streamed = st.rows;
    s.sampled = st.sampled;
    auto rows = std::shared_ptr<data::MeasurementTable>(st.rows, &st.rows->table);
    agreed([&] { model::Evaluator check(*s.model, *rows, streamed_cost(cfg.cost)); });
    return rows;
  }
  if (!s.given)
    agreed([&] {
      *table = s.store->read(cfg.set, s.read, io::RowRange{slice.first, slice.second});
    });
  if (!s.joint.empty()) {
    add_group_columns(*table, s.joint.groups, "'" + cfg.data + "' set '" + cfg.set + "'");
    // Text columns do not travel between ranks (a pooled fit gathers its rows): the indicators
    // stand for them.
    std::erase_if(table->columns(), [&](const data::Column& col) {
      return std::find(s.load.begin(), s.load.end(), col.name()) == s.load.end() &&
             std::find(s.joint.groups.by.begin(), s.joint.groups.by.end(), col.name()) !=
                 s.joint.groups.by.end();
    });
  }
  const data::RowValidity v = data::check_rows(*table, s.load);
  dropped = agree_on_invalid(s, v, island, agreed);
  if (dropped > 0) table->filter_rows(v.keep);
  // Bad targets or weights are found when the evaluator binds the rows, on every rank alike.
  agreed([&] { model::Evaluator check(*s.model, *table, cfg.cost); });
  return table;
}

void log_start(spdlog::level::level_enum level, const Ranks& r, const FitSetup& s,
               const island::IslandLayout& layout, std::size_t rows) {
  if (!spdlog::should_log(level))
    return;  // a selection's winners log at debug: their search dimension costs a model analysis
  const fit::RunConfig& cfg = s.cfg;
  const island::IslandOptions& isl = s.cfg.islands;
  const std::size_t searched = fit::search_dimension(*s.model, cfg.cost, cfg.separable);
  spdlog::log(level,
              "fit model={} set={} rows={} params={} searched={} strategy={} population={} "
              "seed={} threads={} ranks={}",
              s.spec.name, cfg.set, rows, s.model->n_params(), searched,
              de::to_string(cfg.de.strategy),
              island::population_per_island(cfg.de, isl, layout.n_islands, searched), cfg.de.seed,
              cfg.threads, r.size);
  if (r.parallel()) {
    spdlog::log(level, "islands={} ranks_per_island={} topology={} mode={} interval={} migrants={}",
                layout.n_islands, layout.island_size, island::to_string(isl.topology.kind),
                island::to_string(isl.mode), isl.interval, isl.migrants);
  }
}

// After the DE: refuse a non-finite cost, then rank 0 writes the result.
FitJobOutcome finish(const Ranks& r, const FitJob& job, const FitSetup& s, const fit::FitReport& fr,
                     const data::MeasurementTable& table, std::size_t dropped) {
  const fit::RunConfig& cfg = s.cfg;
  const auto level = job.verbose ? spdlog::level::info : spdlog::level::debug;
  FitJobOutcome out;
  out.generations = fr.generations;
  out.out = cfg.out;
  out.checkpoint_dir = cfg.checkpoint_dir;
  if (fr.checkpointed) {
    out.code = kInterruptedExit;
    out.checkpointed = true;
    return out;
  }
  if (spdlog::should_log(spdlog::level::debug)) {  // --log-level debug: the engine's whole report
    std::vector<std::string> names;
    for (const auto& p : s.spec.params) names.push_back(p.name);
    spdlog::debug("{}", fr.full_report(names));
  }
  if (r.parallel()) {
    spdlog::log(level, "islands done: epochs={} best_island={} migration_time={:.3f}s of {:.2f}s",
                fr.epochs, fr.best_island, fr.migration_seconds, fr.de_seconds);
    spdlog::log(level, "phases of rank 0: migration {:.3f}s vote {:.3f}s row allreduce {:.3f}s",
                fr.migration_seconds, fr.vote_seconds, fr.reduce_seconds);
  }
  r.agreed([&] {
    if (!std::isfinite(fr.cost)) {
      throw DataError("the fit of model '" + s.spec.name + "' to '" + cfg.data + "' set '" +
                      cfg.set +
                      "' found no finite cost: every candidate predicted NaN, inf or a negative "
                      "time on some row. Check the model's bounds (a log or division that can "
                      "reach 0) against the set's values; no result was written");
    }
  });
  const double peak_rss = peak_rss_mib(r.parallel() ? r.comm : MPI_COMM_NULL);
  // Interrupted without a checkpoint dir: the best so far is written, marked as such.
  out.code = fr.reason == de::StopReason::interrupted ? kInterruptedExit : 0;
  std::vector<io::MeasuredRange> ranges =
      measured_ranges(*s.model, table, cfg.factors, r.parallel() ? r.comm : MPI_COMM_NULL);
  std::erase_if(ranges,
                [](const io::MeasuredRange& m) { return model::is_group_indicator(m.name); });
  if (!s.joint.empty()) {  // each group's own: a group measured at small scales only is flagged
                           // beyond them
    const auto own = group_ranges(*s.model, table, ranges, s.joint.groups.labels,
                                  r.parallel() ? r.comm : MPI_COMM_NULL);
    ranges.insert(ranges.end(), own.begin(), own.end());
  }
  if (r.rank != 0) return out;  // rank 0 writes the result
  out.result =
      make_result({s.cfg, s.spec, s.joint.groups, s.target, s.checksum,
                   table.attribute_string("unit", "s"), s.info.rows - dropped, dropped, r.size},
                  fr);
  out.result->peak_rss_mib = peak_rss;
  if (!s.sampled.empty()) out.result->warnings.push_back(s.sampled);
  out.result->ranges = std::move(ranges);
  if (!std::isnan(
          job.choice_log_sd)) {  // select's measure of its choice, in place of a forward check
    out.result->choice_log_sd = job.choice_log_sd;
    out.result->choice_dof = job.choice_dof;
    out.result->choice_how = job.choice_how;
    out.result->choice_step_log = job.choice_step_log;
    out.result->choice_growth = job.choice_growth;
  }
  if (const std::size_t k = job.constants_estimated; k > 0) {
    io::ResultFile& res = *out.result;
    if (res.noise_dof > k) {
      res.noise_log_sd *=
          std::sqrt(static_cast<double>(res.noise_dof) / static_cast<double>(res.noise_dof - k));
      res.noise_dof -= k;
    } else {
      res.noise_log_sd = std::numeric_limits<double>::quiet_NaN();
      res.noise_dof = 0;
    }
  }
  out.result->candidates = job.candidates;
  for (auto& c : out.result->candidates) {
    if (c.rank != 1) continue;
    c.model_yaml = out.result->model_yaml;
    for (const auto& p : out.result->params) c.params.push_back(p.value);
  }
  if (job.keep_rows) {
    KeptRows kept = keep_rows(s.spec, table, s.target, fr.params);
    out.result->kept_rows = std::move(kept.rows);
    out.result->kept_stride = kept.stride;
  }
  if (job.write) io::write_result_file(cfg.out, *out.result);
  // Printed once, by the table (or in --json's "warnings"); here only for --log-level debug.
  for (const auto& w : out.result->warnings) spdlog::debug("{}", w);
  return out;
}

}  // namespace

FitJobOutcome run_fit_job(FitJob job, MPI_Comm comm) {
  Ranks r;
  r.comm = comm;
  if (comm != MPI_COMM_NULL) {
    mpi::check(MPI_Comm_size(comm, &r.size), "MPI_Comm_size");
    mpi::check(MPI_Comm_rank(comm, &r.rank), "MPI_Comm_rank");
  }
  FitSetup s;
  r.agreed([&] { prepare(job, s, r.rank, r.size); });
  const fit::RunConfig& cfg = s.cfg;
  const std::size_t searched =
      r.parallel() ? fit::search_dimension(*s.model, cfg.cost, cfg.separable) : 0;
  // A joint fit of many searched params polishes from its groups' own fits, with no DE to run
  // on islands: by default every rank holds every row and takes a share of the polish's
  // Jacobian (its projected solves, which a split of the rows would repeat on every rank).
  const bool polished =
      !s.joint.empty() && searched > fit::kSearchFromStartDims && cfg.islands.ranks_per_island == 0;
  const island::IslandLayout layout =
      r.parallel() ? island::make_layout(comm, polished ? 1
                                                        : island::resolve_ranks_per_island(
                                                              s.cfg.islands, r.size, searched))
                   : island::serial_layout();
  std::size_t dropped = 0;
  const auto table = load_rows(r, s, layout, dropped);
  log_start(job.verbose ? spdlog::level::info : spdlog::level::debug, r, s, layout,
            s.info.rows - dropped);
  island::RunHooks hooks;
  hooks.progress_every = job.verbose ? cfg.progress_every : 0;
  hooks.interrupted =
      job.interrupted ? job.interrupted : std::function<bool()>(perfit::interrupted);
  add_checkpointing(hooks, s, r.rank, comm, r.parallel(), job.periodic_checkpoints);
  if (hooks.progress_every > 0)
    add_progress(hooks, layout, static_cast<double>(s.info.rows - dropped));
  if (!s.joint.empty()) {
    s.spec = choose_pools(s.joint, cfg, fit_problem(s, table, !job.verbose), layout);
    s.model = std::make_shared<const model::Model>(s.spec, s.columns);
  }
  std::optional<fit::FitReport> report;
  {
    const GracefulScope graceful;  // SIGTERM/SIGINT/SIGUSR1 now stop at a generation boundary
    fit::FitProblem problem = fit_problem(s, table, !job.verbose);
    // A selection's winner carries what select measured; a joint fit's groups have scales of their
    // own.
    problem.forward_check = cfg.forward_check && s.joint.empty() && std::isnan(job.choice_log_sd);
    if (!s.joint.empty()) problem.start = joint_start(*s.model, s.joint.alone);
    report = fit::fit(problem, cfg.search(), s.cfg.islands, layout, hooks);
  }
  return finish(r, job, s, *report, *table, dropped);
}

}  // namespace perfit::job
