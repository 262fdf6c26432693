#include "perfit/select/many_sets.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <thread>

#include "perfit/batch/plan.hpp"
#include "perfit/batch/scheduler.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/interrupt.hpp"
#include "perfit/core/test_hooks.hpp"
#include "perfit/core/worker_pool.hpp"
#include "perfit/data/measurement_table.hpp"
#include "perfit/data/wire.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/io/atomic_output.hpp"
#include "perfit/io/file_seal.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/selection_store.hpp"
#include "perfit/io/set_glob.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/io/winner_record.hpp"
#include "perfit/mpi/communicator.hpp"
#include "perfit/mpi/idle_wait.hpp"
#include "perfit/mpi/rank_cpus.hpp"
#include "perfit/select/naive.hpp"
#include "perfit/select/row_text.hpp"
#include "perfit/select/running_ledger.hpp"
#include "perfit/select/winner.hpp"

namespace perfit::select {

namespace {

using Row = nlohmann::ordered_json;
namespace fs = std::filesystem;

// The winner fitted on every row, by the same job as `perfit fit`: its constants are the
// summary's, its result the selection store's.
io::ResultFile winner_result(const SelectArgs& a, const Selection& s, const fit::RunConfig& c) {
  fit::RunConfig cfg = c;  // cfg.out: the selection store (recorded in the config as run)
  cfg.checkpoint_dir.clear();
  job::FitJob job = winner_job(a, cfg, s);
  job.write = false;
  job.keep_rows = false;  // a selection store keeps no rows (10^5 winners)
  // A model found or computed by the selection (searched, naive) reads no column beyond those
  // the selection read: its fit takes those rows instead of describing and reading the set
  // again. Not after dropped rows, which the result counts.
  if (!job.table && job.model && s.set.dropped == 0)
    job.table = std::make_shared<data::MeasurementTable>(*s.set.rows);
  job::FitJobOutcome out = job::run_fit_job(std::move(job), MPI_COMM_NULL);
  if (!out.result)
    throw DataError("'" + c.data + "' set '" + c.set + "': the winner's fit was interrupted");
  return std::move(*out.result);
}

Row ok_row(const std::string& set, const Selection& s, const io::ResultFile& result) {
  const Candidate& w = s.ranked.front();
  const auto score = [](const Candidate& m) {
    return std::isfinite(m.score) ? Row(m.score) : Row(nullptr);
  };
  Row r = {{"set", set},
           {"status", "ok"},
           {"model", w.word},
           {"hypothesis",
            w.searched() ? w.found.expression(w.search_columns) : w.model->spec().expression},
           {"score", score(w)}};
  const bool second = s.ranked.size() > 1 && std::isfinite(s.ranked[1].score);
  r["runner_up"] = second ? Row(s.ranked[1].word) : Row(nullptr);
  r["runner_up_score"] = second ? score(s.ranked[1]) : Row(nullptr);
  const auto& x = w.pooled.metrics;
  r["metrics"] = {{"mape", x.mape}, {"rmse", x.rmse}, {"r2", x.r2}, {"max_rel_err", x.max_rel_err}};
  Row k = Row::object();
  for (const auto& p : result.params) k[p.name] = p.value;
  r["constants"] = k;
  r["message"] = s.how;
  return r;
}

// --result-files: the winner as a result file beside the selection store, written by the rank
// that selected it. Throws: ConfigError for a file of another kind in its place.
std::string write_result_file_of(const SelectUnit& u, const io::ResultFile& r) {
  const fs::path dir = fs::path(u.cfg->out).parent_path();
  const std::string path = (dir / (batch::result_stem(u.set, r.model_name) + ".h5")).string();
  io::check_output({path, "--out", io::FileKind::result, {u.cfg->data}, true});
  io::write_result_file(path, r);
  return path;
}

// An Extra-P call path's own names (io/store_import keeps them as attributes, the set path holds
// only the characters a path may): `callpath` and `metric` columns, so that a user finds their
// call path without undoing the renaming.
void add_extrap_origin(Row& row, const data::Attributes& a) {
  const auto region = a.find("extrap_region");
  if (region == a.end()) return;
  row["callpath"] = data::attribute_text(region->second);
  const auto metric = a.find("extrap_metric");
  row["metric"] = metric == a.end() ? std::string() : data::attribute_text(metric->second);
}

// One set's row text (select/row_text.hpp: rendered here, so that rank 0 only copies it into
// the files) and its winner's record (empty for an error).
struct SetOutcome {
  bool started = false;
  std::string row, record;
};

SetOutcome select_unit(const SelectUnit& u) {
  Row row;
  std::string record;
  try {
    const fit::RunConfig cfg = u.config();
    const Selection sel = select_set(
        *u.args, cfg, [](const std::function<void()>& fn) { fn(); }, MPI_COMM_NULL);
    const io::ResultFile result = winner_result(*u.args, sel, cfg);
    row = ok_row(u.set, sel, result);
    record = io::winner_record(result);  // to rank 0, for the selection store
    add_extrap_origin(row, sel.set.rows->attributes());
    if (u.args->result_files) row["result_file"] = write_result_file_of(u, result);
  } catch (const MpiError&) {
    throw;
  } catch (const Error& e) {
    row = {{"set", u.set}, {"status", "error"}, {"message", e.what()}};
    try {
      add_extrap_origin(row, io::open_store(u.cfg->data)->info(u.set).attributes);
    } catch (const Error&) {  // the error row already says why the set could not be read
    }
  }
  return {true, render_row(row), std::move(record)};
}

// One chunk's rows, its sets selected side by side on the rank's threads, each on its own;
// sets not started before an interrupt are left out (they stay pending). On the wire: how
// many, then for each its unit, its row's text and its winner's record, in the chunk's order
// whatever thread selected it.
std::string select_chunk(const SelectManyRun& run, WorkerPool& threads,
                         const std::vector<std::size_t>& chunk) {
  if (const double ms = test_hook(kSelectChunkDelayMs); ms > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  }
  std::vector<SetOutcome> done(chunk.size());
  threads.for_each(chunk.size(), [&](std::size_t k) {
    if (!interrupted()) done[k] = select_unit(run.units[chunk[k]]);
  });
  data::WireWriter out;
  std::size_t bytes = 8;
  for (const auto& o : done) bytes += 24 + o.row.size() + o.record.size();
  out.reserve(bytes);  // the chunk's texts copied once, not again at each doubling
  out.count(static_cast<std::size_t>(
      std::count_if(done.begin(), done.end(), [](const SetOutcome& o) { return o.started; })));
  io::WinnerConfigs carried;  // each configuration carried by the chunk's first winner of it
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    if (!done[k].started) continue;
    out.count(chunk[k]);
    out.text(done[k].row);
    io::put_record(out, done[k].record, carried);
  }
  return out.take();
}

// Chunks of consecutive sets: about 16 per rank, so that a rank asks for work about 16 times
// whatever the number of sets (at 10^5 small sets one per message would spend more on
// messages than on selections), and at most 256 sets, so that ranks finish close together.
std::vector<std::vector<std::size_t>> chunks_of(const std::vector<std::size_t>& todo, int ranks) {
  const std::size_t per =
      std::clamp<std::size_t>(todo.size() / (16 * static_cast<std::size_t>(ranks)), 1, 256);
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < todo.size(); i += per) {
    out.emplace_back(todo.begin() + static_cast<std::ptrdiff_t>(i),
                     todo.begin() + static_cast<std::ptrdiff_t>(std::min(i + per, todo.size())));
  }
  return out;
}

// World rank 0's progress: a line at most every 2 s (and the last), so that 10^5 sets do not
// print 10^5 lines.
class Progress {
 public:
  explicit Progress(std::size_t todo) : todo_(todo), start_(Clock::now()), last_(start_) {}
  void finished(std::size_t n, const SelectionLedger& ledger) {
    done_ += n;
    const auto now = Clock::now();
    if (done_ < todo_ && now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    spdlog::info("select: {}/{} sets, {} error, elapsed {:.1f} s, ETA {:.1f} s", done_, todo_,
                 ledger.count("error"), elapsed,
                 done_ > 0
                     ? elapsed * static_cast<double>(todo_ - done_) / static_cast<double>(done_)
                     : 0.0);
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t todo_, done_ = 0;
  Clock::time_point start_, last_;
};

// World rank 0: the ledger, with the ok rows of an earlier run taken (resume); returns the
// units left to select.
std::vector<std::size_t> start_ledger(const SelectManyRun& run,
                                      std::optional<SelectionLedger>& ledger) {
  std::vector<std::string> sets;
  sets.reserve(run.units.size());
  for (const auto& u : run.units) sets.push_back(u.set);
  ledger.emplace(std::move(sets), run.about,
                 run.out.empty() ? fs::temp_directory_path().string() : run.out, !run.out.empty());
  const std::size_t taken = run.resume && !run.out.empty() ? ledger->load(run.out) : 0;
  ledger->commit_journal();  // the checkpoint from here on, holding what was taken
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < run.units.size(); ++i) {
    if (!ledger->ok(i)) todo.push_back(i);
  }
  if (taken > 0)
    spdlog::info("select: {} set(s) selected before, {} to select", taken, todo.size());
  return todo;
}

// --out DIR: a directory (made if missing) whose selection.csv / .json may be replaced only with
// --force.
void check_out_dir(const SelectArgs& a, const fit::RunConfig& c) {
  std::error_code ec;
  if (fs::exists(c.out, ec) && !fs::is_directory(c.out, ec)) {
    throw ConfigError("--out '" + c.out +
                      "': with a glob in --set, --out names a directory for selection.csv and "
                      "selection.json, and this is a file. Choose a directory");
  }
  fs::create_directories(c.out, ec);
  if (ec)
    throw IoError("--out '" + c.out + "': cannot create the directory (" + ec.message() + ")");
  check_selection_outputs(c.out, c.data, a.force);
}

void print_rows(const std::vector<Row>& rows) {
  std::printf("%-32s %-6s %-20s %12s %-20s %12s  %s\n", "set", "status", "model", "score",
              "runner-up", "score", "hypothesis / message");
  for (const auto& r : rows) {
    const bool ok = r["status"] == "ok";
    const auto num = [](const Row& v) { return v.is_number() ? v.get<double>() : std::nan(""); };
    std::printf("%-32s %-6s %-20s %12.6g %-20s %12.6g  %s\n", r["set"].get<std::string>().c_str(),
                r["status"].get<std::string>().c_str(),
                ok ? r["model"].get<std::string>().c_str() : "-",
                ok ? num(r["score"]) : std::nan(""),
                ok && r["runner_up"].is_string() ? r["runner_up"].get<std::string>().c_str() : "-",
                ok ? num(r["runner_up_score"]) : std::nan(""),
                (ok ? r["hypothesis"] : r["message"]).get<std::string>().c_str());
  }
}

// World rank 0: the log line, then the table, the JSON or what was written.
void report_many(const SelectArgs& a, const fit::RunConfig& cfg, const SelectionLedger& ledger,
                 double seconds) {
  const std::size_t n = ledger.size(), ok = ledger.count("ok"), errors = ledger.count("error");
  const std::size_t pending = ledger.count("pending");
  spdlog::info(
      "select: {} set(s) in {:.2f} s: {} ok, {} error{}", n, seconds, ok, errors,
      pending ? ", " + std::to_string(pending) + " not selected (interrupted)" : std::string());
  if (a.json) {
    ledger.write_json(std::cout, cfg.out.empty() ? Row::object() : Row{{"out", cfg.out}});
  } else if (!cfg.out.empty()) {
    std::printf(
        "wrote %s (the winners, read by show/predict/explain/recommend --set NAME), selection.csv "
        "and "
        "selection.json: %zu set(s), %zu ok, %zu error\n",
        (fs::path(cfg.out) / "selection.h5").c_str(), n, ok, errors);
  } else {
    print_rows(ledger.rows());
  }
  if (pending > 0) {
    std::fprintf(stderr, "perfit: select interrupted (signal %d): %zu set(s) not selected\n",
                 interrupt_signal(), pending);
  }
}

}  // namespace

fit::RunConfig SelectUnit::config() const {
  fit::RunConfig c = *cfg;
  c.set = set;
  return c;
}

std::optional<SelectionLedger> select_sets(const SelectManyRun& run, MPI_Comm world) {
  int rank = 0, size = 1;
  if (world != MPI_COMM_NULL) {
    mpi::check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank");
    mpi::check(MPI_Comm_size(world, &size), "MPI_Comm_size");
  }
  // Every set opens its store (twice: the selection, the winner's fit): each store's checksum
  // is read once per run, and each is held open, since HDF5 shares an open file's metadata
  // cache with every later open of it (the store's index is not read again per set).
  const io::SealMemo checked_once;
  const io::SetInfoMemo described_once;
  std::map<std::string, std::shared_ptr<io::StoreReader>> keep_open = run.stores;
  for (const auto& u : run.units) {
    if (!keep_open.count(u.cfg->data))
      keep_open.emplace(u.cfg->data, std::make_shared<io::StoreReader>(u.cfg->data));
  }
  for (const auto& u : run.units) {
    if (!u.cfg->by.empty()) {
      throw ConfigError(
          "by: '" + u.cfg->by +
          "' (a joint fit of groups) is for the selection of one set (perfit select "
          "--set S --by COLUMN, or a batch's select: entry with by in its options, one result "
          "file per set); over many sets into one selection store each set is "
          "selected alone");
    }
  }
  std::optional<SelectionLedger> ledger;
  std::vector<std::size_t> todo;
  if (rank == 0) todo = start_ledger(run, ledger);
  // Every rank needs the chunks: the scheduler hands out their indices.
  std::uint64_t n = todo.size();
  if (world != MPI_COMM_NULL) {
    std::vector<std::uint64_t> wire(todo.begin(), todo.end());
    mpi::check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, world), "MPI_Bcast (sets to select)");
    wire.resize(n);
    mpi::check(MPI_Bcast(wire.data(), static_cast<int>(n), MPI_UINT64_T, 0, world),
               "MPI_Bcast (sets to select)");
    todo.assign(wire.begin(), wire.end());
  }
  const auto chunks = chunks_of(todo, size);
  std::vector<std::size_t> order(chunks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::optional<Progress> progress;
  if (rank == 0) progress.emplace(todo.size());
  using Clock = RunningLedger::Clock;
  const double flush_ms = test_hook(kSelectionFlushMs);
  const auto every = flush_ms > 0 ? std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double, std::milli>(flush_ms))
                                  : Clock::duration(std::chrono::seconds(30));
  std::optional<RunningLedger> running;
  if (rank == 0) {
    running.emplace(*ledger, run.out, every, run.units.size(),
                    [&](std::size_t rows) { progress->finished(rows, *ledger); });
  }
  WorkerPool threads(run.threads > 0 ? run.threads : mpi::rank_cpus(world));
  if (rank == 0 && threads.threads() > 1)
    spdlog::info("select: {} threads per rank select sets side by side", threads.threads());
  batch::ScheduleHooks hooks;
  hooks.run = [&](std::size_t c, MPI_Comm) { return select_chunk(run, threads, chunks[c]); };
  hooks.finished = [&](std::size_t, std::string_view bytes) { running->finished(bytes); };
  hooks.flush = [&] { running->flush(); };  // a signal still writes every finished set (finish)
  hooks.stop_requested = [] { return interrupted(); };
  batch::run_schedule(world, 1, order, hooks);
  if (running) running->finish();
  return ledger;
}

int run_select_many(const SelectArgs& a, const fit::RunConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  fit::RunConfig base = cfg;  // every set's options; out: the selection store (the config as run)
  base.out = (fs::path(cfg.out.empty() ? "." : cfg.out) / "selection.h5").string();
  SelectManyRun run;
  run.out = cfg.out;
  run.threads = cfg.threads;  // with a glob: sets side by side (each set's fit: the same count)
  run.about = {{"data", cfg.data}, {"sets", cfg.set}, {"criterion", to_string(a.criterion)}};
  a.agreed([&] {
    if (a.result_files && cfg.out.empty()) {
      throw ConfigError("--result-files writes each winner beside the selection: pass --out DIR");
    }
    for (const auto& set : io::matching_sets(io::StoreReader(cfg.data), cfg.set)) {
      run.units.push_back({&a, &base, set});
    }
    if (!cfg.out.empty() && (!a.parallel() || a.env->rank() == 0)) check_out_dir(a, cfg);
  });
  const std::size_t n = run.units.size();
  spdlog::info("select: {} set(s) match '{}'{}", n, cfg.set,
               a.parallel()
                   ? ", handed out in chunks to " + std::to_string(a.env->size()) + " ranks"
                   : std::string());
  const GracefulScope graceful;  // a signal stops the hand-out; the finished sets are written
  const std::optional<SelectionLedger> ledger = select_sets(run, a.comm());
  double ok = ledger ? static_cast<double>(ledger->count("ok")) : 0.0;
  // The other ranks wait here while rank 0 writes the selection store.
  if (a.parallel())
    mpi::bcast_idle(&ok, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, "MPI_Ibcast (selections ok)");
  if (ok == 0.0 && !interrupted()) {
    const std::string first =
        ledger && ledger->size() > 0 ? ledger->row(0).value("message", "") : "";
    throw DataError("select: every one of the " + std::to_string(n) + " set(s) failed" +
                    (first.empty() ? std::string() : "; the first: " + first));
  }
  if (!ledger) return interrupted() ? kInterruptedExit : 0;
  report_many(a, cfg, *ledger,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return interrupted() ? kInterruptedExit : 0;
}

}  // namespace perfit::select
