#include <spdlog/spdlog.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "fit_checkpoint.hpp"
#include "option_flags.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/utc_time.hpp"
#include "perfit/core/interrupt.hpp"
#include "perfit/core/text.hpp"
#include "perfit/core/version.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/data/row_validity.hpp"
#include "perfit/io/fit_config_yaml.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/output_guard.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/fit/engine.hpp"
#include "perfit/mpi/agreement.hpp"
#include "result_report.hpp"

namespace perfit::app {

namespace {

struct FitArgs {
  std::string config;
  bool json = false, force = false, resume = false;
  OptionFlags<island::RunConfig> flags;
  mpi::MpiEnvironment* env = nullptr;
};

// What every rank sets up before the first collective.
struct Setup {
  island::RunConfig cfg;
  model::ModelSpec spec;
  std::optional<io::StoreReader> store;
  io::SetInfo info;
  std::shared_ptr<const model::Model> model;
  std::vector<std::string> load;  // columns to read: factors, target, weights
  std::string target;
  std::string checksum;           // the set's, written at import
  io::Checkpoint header;          // what a checkpoint of this run records
  std::optional<io::Checkpoint> resume_from;  // world rank 0, with --resume
};


void prepare(const FitArgs& a, Setup& s, int rank, int world_size) {
  if (!a.config.empty()) io::load_run_config(a.config, s.cfg);
  a.flags.apply(s.cfg);
  s.cfg.resolve();
  const de::FitConfig& c = s.cfg.fit;
  if (world_size > 1) s.cfg.islands.validate(world_size);
  if (rank == 0) {  // only rank 0 writes; checked before any data is read
    std::error_code ec;
    io::check_output({c.out, "--out", io::FileKind::result,
                      {c.data, a.config, std::filesystem::is_regular_file(c.model, ec) ? c.model : ""},
                      a.force});
  }
  s.spec = io::load_model(c.model);
  s.store.emplace(c.data);
  s.info = s.store->info(c.set);
  std::vector<std::string> names;
  for (const auto& col : s.info.columns) names.push_back(col.name);
  s.model = std::make_shared<const model::Model>(s.spec, names);
  s.load = s.model->columns_used();
  s.target = s.info.attributes.count("target") ? data::attribute_text(s.info.attributes.at("target")) : "";
  if (s.target.empty()) {
    throw DataError("'" + c.data + "' set '" + c.set + "' has no 'target' attribute naming its "
                    "measured-time column; re-import it with --target");
  }
  for (const std::string& extra : {s.target, c.cost.weight_column}) {
    if (!extra.empty() && std::find(s.load.begin(), s.load.end(), extra) == s.load.end()) {
      s.load.push_back(extra);
    }
  }
  // The set's own fingerprint, written at import: the same whatever rows a rank loads.
  s.checksum = s.info.attributes.count("checksum")
                   ? data::attribute_text(s.info.attributes.at("checksum"))
                   : "none (store written before perfit kept set checksums)";
  s.header = checkpoint_header(s.cfg, io::model_to_yaml(s.spec), s.checksum, world_size);
  if (a.resume && c.checkpoint_dir.empty()) {
    throw ConfigError("--resume needs --checkpoint-dir DIR (or checkpoint_dir: in the config)");
  }
  if (rank == 0 && !c.checkpoint_dir.empty()) {
    prepare_checkpoint_dir(c.checkpoint_dir);
    if (a.resume) s.resume_from = load_for_resume(s.cfg, s.header);
  }
}

// Rows with NaN/inf in a column the fit reads: refused, or dropped with drop_invalid.
// Counts are summed over the island's slices, so every rank takes the same decision.
std::size_t drop_invalid_rows(const Setup& s, data::MeasurementTable& table, MPI_Comm island,
                              const std::function<void(std::function<void()>)>& agreed) {
  data::RowValidity v = data::check_rows(table, s.load);
  std::vector<double> counts(v.invalid.begin(), v.invalid.end());
  counts.push_back(static_cast<double>(v.rows_invalid));
  if (island != MPI_COMM_NULL) {
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_DOUBLE,
                             MPI_SUM, island), "MPI_Allreduce (invalid rows)");
  }
  data::RowValidity total = v;
  for (std::size_t i = 0; i < v.invalid.size(); ++i) total.invalid[i] = static_cast<std::size_t>(counts[i]);
  const auto bad_rows = static_cast<std::size_t>(counts.back());
  const de::FitConfig& c = s.cfg.fit;
  agreed([&] {
    if (bad_rows > 0 && !c.drop_invalid) {
      throw DataError("'" + c.data + "' set '" + c.set + "' has NaN or inf values the model needs: " +
                      describe_invalid(total) + ". Fix the data, or drop those rows with "
                      "--drop-invalid (config key drop_invalid: true)");
    }
    if (bad_rows > 0 && bad_rows == s.info.rows) {
      throw DataError("'" + c.data + "' set '" + c.set + "': every row has a NaN or inf value the "
                      "model needs (" + describe_invalid(total) + "); nothing is left to fit");
    }
  });
  if (bad_rows > 0) {
    table.filter_rows(v.keep);
    spdlog::info("dropped {} of {} rows with NaN or inf ({}; drop_invalid)", bad_rows, s.info.rows,
                 describe_invalid(total));
  }
  return bad_rows;
}

io::ResultFile make_result(const Setup& s, const fit::FitReport& fr, const std::string& checksum,
                           const data::MeasurementTable& table, int world_size,
                           std::size_t dropped) {
  const de::FitConfig& c = s.cfg.fit;
  io::ResultFile r;
  r.model_name = s.spec.name;
  r.model_yaml = io::model_to_yaml(s.spec);
  r.config_yaml = io::run_config_to_yaml(s.cfg);
  r.data_file = c.data;
  r.set = c.set;
  r.data_checksum = checksum;
  r.ranks = world_size;
  r.target = s.target;
  r.unit = table.attribute_string("unit", "s");
  r.rows = s.info.rows - dropped;
  r.rows_dropped = dropped;
  r.seed = c.fit.de.seed;
  const auto& ident = fr.identifiability;
  for (std::size_t k = 0; k < s.model->n_params(); ++k) {
    const auto& p = s.spec.params[k];
    r.params.push_back({p.name, fr.params(static_cast<Eigen::Index>(k)), p.lo, p.hi, p.log_scale,
                        static_cast<bool>(fr.at_bound[k]),
                        ident.identifiable.empty() || ident.identifiable[k]});
  }
  r.warnings = ident.warnings;
  r.cost = fr.cost;
  r.cost_before_polish = fr.cost_before_polish;
  r.polish_improved = fr.polish_improved;
  r.stop_reason = de::to_string(fr.reason);
  r.stop_message = fr.message;
  r.generations = fr.generations;
  r.evaluations = fr.evaluations;
  r.seconds = fr.seconds;
  r.de_seconds = fr.de_seconds;
  r.metrics = fr.metrics;
  r.history = fr.history;
  r.perfit_version = version();
  r.git_revision = git_revision();
  r.created_utc = utc_now();
  return r;
}

int run_fit(FitArgs& a) {
  const int world_size = a.env->initialized() ? a.env->size() : 1;
  const int rank = a.env->initialized() ? a.env->rank() : 0;
  const bool on_islands = world_size > 1;
  // Under MPI every check before the first collective is agreed on: one message, every rank
  // exits with its code.
  const auto agreed = [&](const std::function<void()>& fn) {
    if (on_islands) {
      mpi::all_or_none(MPI_COMM_WORLD, fn);
    } else {
      fn();
    }
  };
  Setup s;
  agreed([&] { prepare(a, s, rank, world_size); });
  const de::FitConfig& cfg = s.cfg.fit;
  const island::IslandOptions& isl = s.cfg.islands;

  island::IslandLayout layout = on_islands ? island::make_layout(MPI_COMM_WORLD, isl.ranks_per_island)
                                           : island::serial_layout();
  const auto [row_begin, row_end] = layout.row_slice(s.info.rows);
  auto table = std::make_shared<data::MeasurementTable>();
  agreed([&] { *table = s.store->read(cfg.set, s.load, io::RowRange{row_begin, row_end}); });
  const std::size_t dropped = drop_invalid_rows(
      s, *table, layout.island_size > 1 ? layout.island_comm.get() : MPI_COMM_NULL, agreed);
  const model::Model& m = *s.model;
  // Bad targets or weights are found when the evaluator binds the rows, on every rank alike.
  agreed([&] { model::Evaluator check(m, *table, cfg.cost); });
  spdlog::info("fit model={} set={} rows={} params={} strategy={} population={} seed={} threads={} "
               "ranks={}", s.spec.name, cfg.set, s.info.rows - dropped, m.n_params(),
               de::to_string(cfg.fit.de.strategy), cfg.fit.de.population_for(m.n_params()),
               cfg.fit.de.seed, cfg.threads, world_size);
  const double rows = static_cast<double>(s.info.rows - dropped);
  island::RunHooks hooks;
  hooks.progress_every = cfg.fit.progress_every;
  hooks.interrupted = perfit::interrupted;
  if (!cfg.checkpoint_dir.empty()) {
    hooks.checkpoint_every = cfg.checkpoint_every;
    hooks.checkpoint_on_interrupt = true;
    if (rank == 0) add_checkpoint_hook(hooks, s.header, cfg.checkpoint_dir);
  }
  int resume = s.resume_from ? 1 : 0;  // rank 0 read the checkpoint; everyone must know
  if (on_islands) mpi::check(MPI_Bcast(&resume, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast (resume)");
  hooks.resume = resume != 0;
  if (s.resume_from) {
    hooks.resume_islands = std::move(s.resume_from->islands);
    hooks.resume_job = s.resume_from->job;
  }
  if (on_islands) {
    spdlog::info("islands={} ranks_per_island={} topology={} mode={} interval={} migrants={}",
                 layout.n_islands, layout.island_size, island::to_string(isl.topology.kind),
                 island::to_string(isl.mode), isl.interval, isl.migrants);
    if (cfg.fit.progress_every > 0) {
      hooks.on_epoch = [](const island::EpochReport& r) {
        spdlog::info("epoch={} best_cost={:.6g} island_spread={:.3g} evals/s={:.4g} migration={:.1f}%",
                     r.epoch, r.best_cost, r.spread, r.evals_per_second, 100.0 * r.migration_fraction);
      };
    }
  } else {
    hooks.on_generation = [&](const de::DeState& st, double sec) {
      spdlog::info("gen={} evals={} best_cost={:.6g} evals/s={:.4g} row-evals/s={:.3g}", st.generation,
                   st.evaluations, st.history.back(), st.evaluations / std::max(sec, 1e-9),
                   rows * st.evaluations / std::max(sec, 1e-9));
    };
  }
  std::optional<fit::FitReport> report;
  {
    const GracefulScope graceful;  // SIGTERM/SIGINT/SIGUSR1 now stop at a generation boundary
    report = fit::fit({s.model, table, cfg.cost, {}, cfg.threads, cfg.compress}, cfg.fit, isl, layout, hooks);
  }
  const fit::FitReport& fr = *report;
  if (fr.checkpointed) {
    if (rank == 0) {
      std::fprintf(stderr, "perfit: interrupted at generation %zu (signal %d); checkpoint in '%s'; "
                   "resume with: %s\n", fr.generations, interrupt_signal(),
                   io::checkpoint_path(cfg.checkpoint_dir).c_str(), resume_command().c_str());
    }
    return kInterruptedExit;
  }
  if (on_islands) {
    spdlog::info("islands done: epochs={} best_island={} migration_time={:.3f}s of {:.2f}s",
                 fr.epochs, fr.best_island, fr.migration_seconds, fr.de_seconds);
  }
  agreed([&] {
    if (!std::isfinite(fr.cost)) {
      throw DataError("the fit of model '" + s.spec.name + "' to '" + cfg.data + "' set '" + cfg.set +
                      "' found no finite cost: every candidate predicted NaN, inf or a negative "
                      "time on some row. Check the model's bounds (a log or division that can "
                      "reach 0) against the set's values; no result was written");
    }
  });
  // Interrupted without a checkpoint dir: the best so far is written, marked as such.
  const int code = fr.reason == de::StopReason::interrupted ? kInterruptedExit : 0;
  if (rank != 0) return code;  // rank 0 writes the result and reports

  const io::ResultFile r = make_result(s, fr, s.checksum, *table, world_size, dropped);
  io::write_result_file(cfg.out, r);
  for (const auto& w : r.warnings) spdlog::warn("{}", w);
  if (a.json) {
    std::cout << result_json(r, cfg.out).dump(2) << "\n";
  } else {
    print_result_table(r);
    std::printf("wrote %s\n", cfg.out.c_str());
  }
  if (code == kInterruptedExit) {
    std::fprintf(stderr, "perfit: interrupted at generation %zu (signal %d); wrote the best so far "
                 "with stop_reason=interrupted. Pass --checkpoint-dir DIR to make fits resumable\n",
                 fr.generations, interrupt_signal());
  }
  return code;
}

}  // namespace

void add_fit_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<FitArgs>();
  a->env = &env;
  auto* cmd = app.add_subcommand(
      "fit",
      "Fit a model's constants to a measurement set by differential evolution (+ LM polish).\n"
      "Every option is a flag and a key of the YAML --config (configs/fit.yaml lists them with\n"
      "their defaults); flags override the config. Progress goes to stderr, the table (or\n"
      "--json) to stdout. Under mpiexec -n R it runs R islands (docs/islands.md).");
  cmd->add_option("--config", a->config, "YAML config (see configs/fit.yaml)");
  a->flags.add(cmd, island::run_config_option_table(), island::RunConfig{});
  cmd->add_flag("--force", a->force, "replace an existing result file at --out");
  cmd->add_flag("--resume", a->resume,
                "continue from the checkpoint in --checkpoint-dir (none there: start fresh)");
  cmd->add_flag("--json", a->json, "print one JSON object on stdout instead of the table");
  cmd->callback([a, &action] { action = [a] { return run_fit(*a); }; });
}

}  // namespace perfit::app
