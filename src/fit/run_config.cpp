#include "perfit/fit/run_config.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "perfit/core/error.hpp"
#include "perfit/io/options_yaml.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::fit {

void RunConfig::validate(bool need_out) const {
  if (data.empty())
    throw ConfigError("no data store: pass --data STORE.h5 (or 'data:' in the config)");
  if (set.empty())
    throw ConfigError(
        "no set: pass --set /<framework>/<model> (or 'set:' in the config); `perfit inspect " +
        data + "` lists them");
  if (need_out && out.empty())
    throw ConfigError("no output: pass --out RESULT.h5 (or 'out:' in the config)");
  if (model.empty())
    throw ConfigError(
        "no model: pass --model generic (or a YAML file); `perfit models` lists them");
  cost.validate();
  model::parse_factor_bindings(factors);
  if (by.empty() && !(shared.empty() && per_group.empty() && pooled.empty())) {
    throw ConfigError(
        std::string(!shared.empty()      ? "--shared"
                    : !per_group.empty() ? "--per-group"
                                         : "--pooled") +
        " names constants of a joint fit: pass --by COLUMN too (the column whose values "
        "split the rows into groups, e.g. --by framework)");
  }
}

void RunConfig::resolve(bool need_out) {
  islands.per_island =
      per_island.empty() ? std::vector<de::DeOptions>{} : parse_per_island(per_island, de);
  validate(need_out);
}

std::vector<de::DeOptions> parse_per_island(const std::string& text, const de::DeOptions& base) {
  std::vector<de::DeOptions> out;
  std::stringstream all(text);
  std::string entry;
  while (std::getline(all, entry, ';')) {
    de::DeOptions d = base;
    const std::string where = "islands.per_island entry " + std::to_string(out.size() + 1);
    std::stringstream items(entry);
    std::string item;
    while (std::getline(items, item, ',')) {
      if (item.find_first_not_of(' ') == std::string::npos) continue;
      const auto eq = item.find('=');
      if (eq == std::string::npos) {
        throw ConfigError(where + ": found '" + item + "', expected KEY=VALUE with a de option");
      }
      auto trim = [](std::string s) {
        const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
      };
      const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
      apply_option(de::de_option_table(), d, key, value, where);
    }
    out.push_back(d);
  }
  return out;
}

namespace {

// A number, or `auto`: chosen on held-out scales at fit time.
Option<RunConfig> pool_strength_option() {
  const std::string expected = "auto or a number in " + range_text(0.0, 1e12);
  return {
      "pool_strength",
      "pool-strength",
      "with --by: how strongly pooled constants are drawn toward their common value (0: per group; "
      "large: shared; auto: chosen on held-out scales, docs/joint.md)",
      expected,
      OptionKind::number,
      [expected](RunConfig& c, const std::string& t) {
        c.pool_strength = t == "auto" ? std::numeric_limits<double>::quiet_NaN()
                                      : parse_real(t, 0.0, 1e12, expected);
      },
      [](const RunConfig& c) {
        return std::isnan(c.pool_strength) ? std::string("auto") : format_real(c.pool_strength);
      }};
}

}  // namespace

const OptionTable<RunConfig>& run_config_option_table() {
  using S = RunConfig;
  static const OptionTable<RunConfig> t = [] {
    OptionTable<RunConfig> v = {
        text_option<S>(
            "data", [](S & c) -> auto& { return c.data; }, "a path", "HDF5 store"),
        text_option<S>(
            "set", [](S & c) -> auto& { return c.set; }, "a set path or pattern",
            "set path, e.g. /pytorch/resnet50; a pattern (/*/resnet50): fit fits the "
            "sets together, each a group (--by set, docs/joint.md), select chooses per set"),
        text_option<S>(
            "model", [](S & c) -> auto& { return c.model; }, "a model name or file",
            "built-in model name or YAML file"),
        text_option<S>(
            "factors", [](S & c) -> auto& { return c.factors; },
            "NAME=COLUMN or NAME=NUMBER, comma-separated",
            "bind the model's factors to the set's columns or to fixed values, e.g. "
            "p=n_accelerators,d=1 (empty: factors are columns of the same name)"),
        text_option<S>(
            "scale", [](S & c) -> auto& { return c.scale; }, "a column name",
            "the column that measures scale (workers): lambda: auto leaves its values "
            "out one at a time, select extrapolates to its largest (empty: p, or the "
            "column p is bound to)"),
        text_option<S>(
            "by", [](S & c) -> auto& { return c.by; }, "column names, comma-separated",
            "fit the groups that the values of these columns split the rows into jointly: "
            "one expression, constants shared or per group (--shared, --per-group; "
            "docs/joint.md)"),
        text_option<S>(
            "shared", [](S & c) -> auto& { return c.shared; }, "constant names, comma-separated",
            "with --by: the constants every group shares"),
        text_option<S>(
            "per_group", [](S & c) -> auto& { return c.per_group; },
            "constant names, comma-separated",
            "with --by: the constants each group has its own value of"),
        text_option<S>(
            "pooled", [](S & c) -> auto& { return c.pooled; }, "constant names, comma-separated",
            "with --by: the constants each group has its own value of, drawn toward their "
            "common value (the default for every constant --shared and --per-group do not "
            "name)"),
        pool_strength_option(),
        text_option<S>(
            "out", [](S & c) -> auto& { return c.out; }, "a path", "result file to write (HDF5)"),
        whole_option<S>(
            "seed", [](S & c) -> auto& { return c.de.seed; }, 0,
            std::numeric_limits<std::uint64_t>::max(),
            "random seed; same seed, options and data give the same result"),
        whole_option<S>(
            "threads", [](S & c) -> auto& { return c.threads; }, 1, 1024,
            "evaluator threads per process (rows split among them); with a glob of sets "
            "(select --set GLOB), threads per rank selecting sets side by side"),
        whole_option<S>(
            "progress_every", [](S & c) -> auto& { return c.progress_every; }, 0, 1000000000,
            "generations between progress lines (0: none)"),
        bool_option<S>(
            "polish", [](S & c) -> auto& { return c.polish; },
            "polish of the DE best: Newton over the searched constants under variable "
            "projection, else Levenberg-Marquardt (--no-polish: skip it)"),
        whole_option<S>(
            "search_rows", [](S & c) -> auto& { return c.search_rows; }, 0,
            std::numeric_limits<std::size_t>::max(),
            "a set of more than twice this many rows (after compression) is searched "
            "on every k-th row, at most this many, and polished on all rows; only "
            "with the polish on and no target cost (0: search on all rows)"),
        bool_option<S>(
            "drop_invalid", [](S & c) -> auto& { return c.drop_invalid; },
            "drop rows with NaN or inf in a column the fit reads (and count them)"),
        bool_option<S>(
            "compress", [](S & c) -> auto& { return c.compress; },
            "evaluate each distinct configuration once when that pays (squared "
            "residuals; same result up to rounding; --no-compress: every row)"),
        whole_option<S>(
            "stream_rows", [](S & c) -> auto& { return c.stream_rows; }, 0,
            std::numeric_limits<std::size_t>::max(),
            "a rank's share of more rows than this is read in chunks (of at most 131072 "
            "rows) and compressed as it is read, so memory grows with the distinct "
            "configurations, not the rows (compressed fits only; rows mostly distinct: up to "
            "16 times this many read into memory, beyond a strided sample of about this many "
            "fitted, and the result says so; 0: read every row into memory)"),
        enum_option<S>(
            "separable", [](S & c) -> auto& { return c.separable; },
            std::vector<model::SeparableMode>{model::SeparableMode::automatic,
                                              model::SeparableMode::off},
            model::parse_separable_mode,
            [](model::SeparableMode mode) { return model::to_string(mode); },
            "auto: solve the constants the model is linear in by least squares for "
            "each candidate and search only the others (squared residuals); off: "
            "search every constant"),
        whole_option<S>(
            "bootstrap", [](S & c) -> auto& { return c.bootstrap; }, 0, 1000000,
            "after the fit, this many refits on rows resampled with replacement (by "
            "configuration when configurations repeat) give percentile intervals for "
            "every constant and prediction (0: none; 200 is a usual choice)"),
        real_option<S>(
            "ci", [](S & c) -> auto& { return c.ci; }, 0.5, 0.999,
            "level of the bootstrap intervals"),
        bool_option<S>(
            "forward_check", [](S & c) -> auto& { return c.forward_check; },
            "after the fit, refits from its constants trained below each of the (up to "
            "4) largest values of the scale column, each predicting that value: beyond "
            "the measured range a prediction interval then holds how far "
            "the model misses scales it was not fitted on, growing with the distance "
            "(docs/analysis.md; needs 3+ values of the scale column; not for --by)"),
        text_option<S>(
            "checkpoint_dir", [](S & c) -> auto& { return c.checkpoint_dir; }, "a directory",
            "write checkpoints to DIR/checkpoint.h5 (created if missing); with --resume "
            "continue from it"),
        whole_option<S>(
            "checkpoint_every", [](S & c) -> auto& { return c.checkpoint_every; }, 1, 1000000000,
            "generations between checkpoints, rounded up to whole epochs"),
    };
    add_nested(
        v, model::cost_option_table(), "cost.", [](S & c) -> auto& { return c.cost; });
    add_nested(
        v, de::de_option_table(), "de.", [](S & c) -> auto& { return c.de; });
    add_nested(
        v, island::island_option_table(), "islands.", [](S & c) -> auto& { return c.islands; });
    v.push_back({"islands.per_island", "per-island",
                 "islands: heterogeneous DE options, island i takes entry i % n "
                 "(e.g. strategy=jso;strategy=lshade,F=0.7)",
                 "rows of de KEY=VALUE pairs", OptionKind::rows,
                 [](S& c, const std::string& text) {
                   parse_per_island(text, de::DeOptions{});  // checks keys and values now
                   c.per_island = text;
                 },
                 [](const S& c) { return c.per_island; }});
    return v;
  }();
  return t;
}

void apply_run_config_yaml(const std::string& text, const std::string& origin, RunConfig& cfg) {
  const std::string where = "config '" + origin + "'";
  for (const auto& [key, value] : io::read_options_yaml(text, where)) {
    apply_option(run_config_option_table(), cfg, key, value, where);
  }
}

void load_run_config(const std::string& path, RunConfig& cfg) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read config '" + path + "' (missing or no permission)");
  std::stringstream ss;
  ss << in.rdbuf();
  apply_run_config_yaml(ss.str(), path, cfg);
}

std::string run_config_to_yaml(const RunConfig& cfg) {
  return io::options_to_yaml(option_values(run_config_option_table(), cfg));
}

std::string run_config_to_json(const RunConfig& cfg) {
  return io::options_to_json(option_values(run_config_option_table(), cfg));
}

}  // namespace perfit::fit
