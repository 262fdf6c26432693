#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "commands.hpp"
#include "perfit/core/error.hpp"
#include "perfit/core/version.hpp"
#include "perfit/data/checksum.hpp"
#include "perfit/de/fit_config.hpp"
#include "perfit/io/fit_config_yaml.hpp"
#include "perfit/io/model_config.hpp"
#include "perfit/io/result_file.hpp"
#include "perfit/io/store_reader.hpp"
#include "perfit/island/island_fit.hpp"

namespace perfit::app {

namespace {

struct FitArgs {
  std::string config;
  bool json = false;
  // Flags that override the config (applied only when given).
  std::string data, set, model, out, strategy, residual, init;
  std::uint64_t seed = 1;
  unsigned threads = 1;
  double max_generations = 0, max_evaluations = 0, target_cost = 0, lambda = 0, max_seconds = 0;
  std::size_t population = 0, progress_every = 0;
  bool no_polish = false;
  std::string topology, mode;
  std::size_t interval = 0, migrants = 0;
  int ranks_per_island = 1;
  island::IslandOptions islands;  // filled by build_config
  mpi::MpiEnvironment* env = nullptr;
  CLI::App* cmd = nullptr;
  bool given(const char* flag) const { return cmd->count(flag) > 0; }
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

de::FitConfig build_config(FitArgs& a) {
  de::FitConfig c;
  if (!a.config.empty()) io::load_fit_config(a.config, c, &a.islands);
  if (a.given("--topology")) a.islands.topology.kind = island::parse_topology(a.topology);
  if (a.given("--migration-interval")) a.islands.interval = a.interval;
  if (a.given("--migrants")) a.islands.migrants = a.migrants;
  if (a.given("--ranks-per-island")) a.islands.ranks_per_island = a.ranks_per_island;
  if (a.given("--mode")) {
    if (a.mode != "sync" && a.mode != "async") {
      throw ConfigError("--mode '" + a.mode + "' is not one of sync, async");
    }
    a.islands.mode = a.mode == "sync" ? island::MigrationMode::sync : island::MigrationMode::async;
  }
  if (a.given("--data")) c.data = a.data;
  if (a.given("--set")) c.set = a.set;
  if (a.given("--model")) c.model = a.model;
  if (a.given("--out")) c.out = a.out;
  if (a.given("--seed")) c.fit.de.seed = a.seed;
  if (a.given("--threads")) c.threads = a.threads;
  if (a.given("--strategy")) c.fit.de.strategy = de::parse_strategy(a.strategy);
  if (a.given("--init")) c.fit.de.init = de::parse_init(a.init);
  if (a.given("--population")) c.fit.de.population = a.population;
  if (a.given("--max-generations")) c.fit.de.max_generations = static_cast<std::size_t>(a.max_generations);
  if (a.given("--max-evaluations")) c.fit.de.max_evaluations = static_cast<std::size_t>(a.max_evaluations);
  if (a.given("--target-cost")) c.fit.de.target_cost = a.target_cost;
  if (a.given("--max-seconds")) c.fit.de.max_seconds = a.max_seconds;
  if (a.given("--residual")) c.cost.residual = model::parse_residual(a.residual);
  if (a.given("--lambda")) c.cost.lambda = a.lambda;
  if (a.given("--progress-every")) c.fit.progress_every = a.progress_every;
  if (a.no_polish) c.fit.polish = false;
  c.validate();
  return c;
}

void print_table(const io::ResultFile& r, const model::Model& m) {
  std::printf("fit of model '%s' to '%s' set '%s' (%zu rows, target %s)\n", r.model_name.c_str(),
              r.data_file.c_str(), r.set.c_str(), r.rows, r.target.c_str());
  std::printf("  %-12s %14s %12s %12s  %s\n", "param", "value", "lower", "upper", "scale");
  for (const auto& p : r.params) {
    std::printf("  %-12s %14.6g %12.4g %12.4g  %-6s%s\n", p.name.c_str(), p.value, p.lo, p.hi,
                p.log_scale ? "log" : "linear",
                p.at_bound ? "  at a bound: widen it and refit, unless the bound is physical" : "");
  }
  const auto& x = r.metrics;
  std::printf("metrics: MAPE %.3g%%  RMSE %.4g %s  R^2 %.6f  GMAE %.3g%%  max rel err %.3g%%\n",
              x.mape, x.rmse, r.unit.c_str(), x.r2, x.gmae, x.max_rel_err);
  std::printf("cost %.6g (DE %.6g; LM polish %s), %zu generations, %zu evaluations, %.2f s\n",
              r.cost, r.cost_before_polish, r.polish_improved ? "improved it" : "kept the DE best",
              r.generations, r.evaluations, r.seconds);
  std::printf("stopped: %s (%s)\n", r.stop_reason.c_str(), r.stop_message.c_str());
  (void)m;
}

int run_fit(FitArgs& a) {
  const de::FitConfig cfg = build_config(a);
  const int world_size = a.env->initialized() ? a.env->size() : 1;
  const int rank = a.env->initialized() ? a.env->rank() : 0;
  const bool on_islands = world_size > 1;
  if (on_islands) a.islands.validate(world_size);  // before any collective, on every rank
  const model::ModelSpec spec = io::load_model(cfg.model);
  io::StoreReader store(cfg.data);
  const io::SetInfo info = store.info(cfg.set);
  std::vector<std::string> names;
  for (const auto& c : info.columns) names.push_back(c.name);
  const model::Model m(spec, names);
  // Load only what the fit reads: the model's factors, the target and the weights.
  std::vector<std::string> load = m.columns_used();
  const std::string target = info.attributes.count("target")
                                 ? data::attribute_text(info.attributes.at("target")) : "";
  if (target.empty()) {
    throw DataError("'" + cfg.data + "' set '" + cfg.set + "' has no 'target' attribute naming "
                    "its measured-time column; re-import it with --target");
  }
  for (const std::string& extra : {target, cfg.cost.weight_column}) {
    if (!extra.empty() && std::find(load.begin(), load.end(), extra) == load.end()) load.push_back(extra);
  }
  // Everything that can fail on one rank is done: from here on, collectives.
  island::IslandLayout layout;
  io::RowRange range;
  if (on_islands) {
    layout = island::make_layout(MPI_COMM_WORLD, a.islands.ranks_per_island);
    const auto [b, e] = layout.row_slice(info.rows);
    range = {b, e};
  }
  const data::MeasurementTable table = store.read(cfg.set, load, range);
  model::EvaluatorOptions eo;
  eo.threads = cfg.threads;
  const model::Evaluator ev(m, table, cfg.cost, eo);
  spdlog::info("fit model={} set={} rows={} params={} strategy={} population={} seed={} threads={} "
               "ranks={}", spec.name, cfg.set, info.rows, m.n_params(),
               de::to_string(cfg.fit.de.strategy), cfg.fit.de.population_for(m.n_params()),
               cfg.fit.de.seed, cfg.threads, world_size);
  const double rows = static_cast<double>(info.rows);
  de::FitResult fr;
  std::string checksum = data::table_checksum(table);
  if (on_islands) {
    spdlog::info("islands={} ranks_per_island={} topology={} mode={} interval={} migrants={}",
                 layout.n_islands, layout.island_size, island::to_string(a.islands.topology.kind),
                 a.islands.mode == island::MigrationMode::sync ? "sync" : "async",
                 a.islands.interval, a.islands.migrants);
    const island::IslandFitResult ir = island::fit_on_islands(
        layout, ev, cfg.fit, a.islands, [&](const island::EpochReport& r) {
          spdlog::info("epoch={} best_cost={:.6g} island_spread={:.3g} evals/s={:.4g} "
                       "migration={:.1f}%", r.epoch, r.best_cost, r.spread, r.evals_per_second,
                       100.0 * r.migration_fraction);
        });
    fr = ir.fit;
    spdlog::info("islands done: epochs={} best_island={} migration_time={:.3f}s of {:.2f}s",
                 ir.islands.epochs, ir.islands.best_island, ir.islands.migration_seconds,
                 ir.islands.seconds);
    if (layout.island_size > 1 && layout.island == 0) {  // checksum of all of island 0's slices
      char mine[32] = {};
      std::snprintf(mine, sizeof mine, "%s", checksum.c_str());
      std::vector<char> all(static_cast<std::size_t>(32 * layout.island_size));
      mpi::check(MPI_Gather(mine, 32, MPI_CHAR, all.data(), 32, MPI_CHAR, 0, layout.island_comm.get()),
                 "MPI_Gather (checksums)");
      if (rank == 0) {
        data::MeasurementTable parts;
        std::vector<std::string> v;
        for (int i = 0; i < layout.island_size; ++i) v.emplace_back(all.data() + 32 * i);
        parts.add_column(data::Column("slices", v));
        checksum = data::table_checksum(parts);
      }
    }
    if (rank != 0) return 0;  // rank 0 writes the result and reports
  } else {
    fr = de::fit_model(ev, cfg.fit, [&](std::size_t g, std::size_t e, double best, double s) {
      spdlog::info("gen={} evals={} best_cost={:.6g} evals/s={:.4g} row-evals/s={:.3g}", g, e,
                   best, e / std::max(s, 1e-9), rows * e / std::max(s, 1e-9));
    });
  }

  io::ResultFile r;
  r.model_name = spec.name;
  r.model_yaml = io::model_to_yaml(spec);
  r.config_yaml = io::fit_config_to_yaml(cfg, on_islands ? &a.islands : nullptr);
  r.data_file = cfg.data;
  r.set = cfg.set;
  r.data_checksum = checksum;
  r.ranks = world_size;
  r.target = target;
  r.unit = table.attribute_string("unit", "s");
  r.rows = info.rows;
  r.seed = cfg.fit.de.seed;
  for (std::size_t k = 0; k < m.n_params(); ++k) {
    const auto& p = spec.params[k];
    r.params.push_back({p.name, fr.params(static_cast<Eigen::Index>(k)), p.lo, p.hi, p.log_scale,
                        static_cast<bool>(fr.at_bound[k])});
  }
  r.cost = fr.cost;
  r.cost_before_polish = fr.cost_before_polish;
  r.polish_improved = fr.polish_improved;
  r.stop_reason = de::to_string(fr.de.reason);
  r.stop_message = fr.de.message;
  r.generations = fr.de.generations;
  r.evaluations = fr.de.evaluations;
  r.seconds = fr.seconds;
  r.metrics = fr.metrics;
  r.history = fr.history;
  r.perfit_version = version();
  r.git_revision = git_revision();
  r.created_utc = utc_now();
  io::write_result_file(cfg.out, r);

  if (a.json) {
    nlohmann::ordered_json j = {{"model", r.model_name}, {"set", r.set}, {"data", r.data_file}};
    j["params"] = nlohmann::ordered_json::object();
    for (const auto& p : r.params) j["params"][p.name] = p.value;
    j["at_bound"] = nlohmann::ordered_json::array();
    for (const auto& p : r.params) {
      if (p.at_bound) j["at_bound"].push_back(p.name);
    }
    j["cost"] = r.cost;
    j["metrics"] = {{"mape", r.metrics.mape}, {"rmse", r.metrics.rmse}, {"r2", r.metrics.r2},
                    {"gmae", r.metrics.gmae}, {"max_rel_err", r.metrics.max_rel_err}};
    j["generations"] = r.generations;
    j["evaluations"] = r.evaluations;
    j["stop_reason"] = r.stop_reason;
    j["seed"] = r.seed;
    j["seconds"] = r.seconds;
    j["de_seconds"] = fr.de.seconds;
    j["ranks"] = world_size;
    j["rows"] = r.rows;
    j["result"] = cfg.out;
    std::cout << j.dump(2) << "\n";
  } else {
    print_table(r, m);
    std::printf("wrote %s\n", cfg.out.c_str());
  }
  return 0;
}

}  // namespace

void add_fit_command(CLI::App& app, Action& action, mpi::MpiEnvironment& env) {
  auto a = std::make_shared<FitArgs>();
  a->env = &env;
  auto* cmd = app.add_subcommand(
      "fit",
      "Fit a model's constants to a measurement set by differential evolution (+ LM polish).\n"
      "Options come from --config (configs/fit.yaml lists every one with its default) and\n"
      "flags override them. Progress goes to stderr, the table (or --json) to stdout.\n"
      "Under mpiexec -n R it runs R islands (MPI island model, docs/islands.md).");
  a->cmd = cmd;
  cmd->add_option("--config", a->config, "YAML config (see configs/fit.yaml)");
  cmd->add_option("--data", a->data, "HDF5 store");
  cmd->add_option("--set", a->set, "set path, e.g. /pytorch/resnet50");
  cmd->add_option("--model", a->model, "built-in model name or YAML file [generic]");
  cmd->add_option("--out", a->out, "result file to write (HDF5)");
  cmd->add_option("--seed", a->seed, "random seed; same seed and options, same result [1]");
  cmd->add_option("--threads", a->threads, "evaluator threads [1]");
  cmd->add_option("--strategy", a->strategy,
                  "rand1bin, best1bin, current-to-best1bin, rand2bin, current-to-pbest1, shade, "
                  "lshade, jso [lshade]");
  cmd->add_option("--init", a->init, "uniform, lhs, sobol [lhs]");
  cmd->add_option("--population", a->population, "population size (0: strategy default)");
  cmd->add_option("--max-generations", a->max_generations, "generation limit [2000]");
  cmd->add_option("--max-evaluations", a->max_evaluations, "evaluation limit (0: none)");
  cmd->add_option("--target-cost", a->target_cost, "stop once the best cost is <= this");
  cmd->add_option("--max-seconds", a->max_seconds, "wall-clock limit for the DE (0: none)");
  cmd->add_option("--residual", a->residual, "rel_sq, sq_log, ape, sq [rel_sq]");
  cmd->add_option("--lambda", a->lambda, "regularisation weight [0]");
  cmd->add_option("--progress-every", a->progress_every, "generations between progress lines [25]");
  cmd->add_flag("--no-polish", a->no_polish, "skip the Levenberg-Marquardt polish");
  cmd->add_option("--topology", a->topology, "islands: ring, ring-bi, torus, full, random, custom [ring]");
  cmd->add_option("--migration-interval", a->interval, "islands: generations per epoch [20]");
  cmd->add_option("--migrants", a->migrants, "islands: emigrants per island per epoch [2]");
  cmd->add_option("--mode", a->mode, "islands: sync (reproducible) or async [sync]");
  cmd->add_option("--ranks-per-island", a->ranks_per_island,
                  "islands: ranks sharing one population, each with a slice of the rows [1]");
  cmd->add_flag("--json", a->json, "print one JSON object on stdout instead of the table");
  cmd->callback([a, &action] { action = [a] { return run_fit(*a); }; });
}

}  // namespace perfit::app
