#include "perfit/de/fit_config.hpp"

#include "perfit/core/error.hpp"
#include "perfit/model/factor_binding.hpp"

namespace perfit::de {

void FitConfig::validate(bool need_out) const {
  if (data.empty()) throw ConfigError("no data store: pass --data STORE.h5 (or 'data:' in the config)");
  if (set.empty()) throw ConfigError("no set: pass --set /<framework>/<model> (or 'set:' in the config); `perfit inspect " + data + "` lists them");
  if (need_out && out.empty()) throw ConfigError("no output: pass --out RESULT.h5 (or 'out:' in the config)");
  if (model.empty()) throw ConfigError("no model: pass --model generic (or a YAML file); `perfit models` lists them");
  cost.validate();
  model::parse_factor_bindings(factors);
}

const OptionTable<FitConfig>& fit_config_option_table() {
  using S = FitConfig;
  static const OptionTable<FitConfig> t = [] {
    OptionTable<FitConfig> v = {
        text_option<S>("data", [](S& c) -> auto& { return c.data; }, "a path", "HDF5 store"),
        text_option<S>("set", [](S& c) -> auto& { return c.set; }, "a set path",
                       "set path, e.g. /pytorch/resnet50"),
        text_option<S>("model", [](S& c) -> auto& { return c.model; }, "a model name or file",
                       "built-in model name or YAML file"),
        text_option<S>("factors", [](S& c) -> auto& { return c.factors; }, "NAME=COLUMN or NAME=NUMBER, comma-separated",
                       "bind the model's factors to the set's columns or to fixed values, e.g. "
                       "p=n_accelerators,d=1 (empty: factors are columns of the same name)"),
        text_option<S>("scale", [](S& c) -> auto& { return c.scale; }, "a column name",
                       "the column that measures scale (workers): lambda: auto leaves its values "
                       "out one at a time, select extrapolates to its largest (empty: p, or the "
                       "column p is bound to)"),
        text_option<S>("out", [](S& c) -> auto& { return c.out; }, "a path",
                       "result file to write (HDF5)"),
        whole_option<S>("seed", [](S& c) -> auto& { return c.fit.de.seed; }, 0,
                        std::numeric_limits<std::uint64_t>::max(),
                        "random seed; same seed, options and data give the same result"),
        whole_option<S>("threads", [](S& c) -> auto& { return c.threads; }, 1, 1024,
                        "evaluator threads per process"),
        whole_option<S>("progress_every", [](S& c) -> auto& { return c.fit.progress_every; }, 0,
                        1000000000, "generations between progress lines (0: none)"),
        bool_option<S>("polish", [](S& c) -> auto& { return c.fit.polish; },
                       "Levenberg-Marquardt polish of the DE best (--no-polish: skip it)"),
        bool_option<S>("drop_invalid", [](S& c) -> auto& { return c.drop_invalid; },
                       "drop rows with NaN or inf in a column the fit reads (and count them)"),
        bool_option<S>("compress", [](S& c) -> auto& { return c.compress; },
                       "evaluate each distinct configuration once when that pays (squared "
                       "residuals; same result up to rounding; --no-compress: every row)"),
        enum_option<S>("separable", [](S& c) -> auto& { return c.separable; },
                       std::vector<model::SeparableMode>{model::SeparableMode::automatic,
                                                         model::SeparableMode::off},
                       model::parse_separable_mode,
                       [](model::SeparableMode mode) { return model::to_string(mode); },
                       "auto: solve the constants the model is linear in by least squares for "
                       "each candidate and search only the others (squared residuals); off: "
                       "search every constant"),
        whole_option<S>("bootstrap", [](S& c) -> auto& { return c.bootstrap; }, 0, 1000000,
                        "after the fit, this many refits on rows resampled with replacement (by "
                        "configuration when configurations repeat) give percentile intervals for "
                        "every constant and prediction (0: none; 200 is a usual choice)"),
        real_option<S>("ci", [](S& c) -> auto& { return c.ci; }, 0.5, 0.999,
                       "level of the bootstrap intervals"),
        text_option<S>("checkpoint_dir", [](S& c) -> auto& { return c.checkpoint_dir; }, "a directory",
                       "write checkpoints to DIR/checkpoint.h5 (created if missing); with --resume "
                       "continue from it"),
        whole_option<S>("checkpoint_every", [](S& c) -> auto& { return c.checkpoint_every; }, 1,
                        1000000000, "generations between checkpoints, rounded up to whole epochs"),
    };
    add_nested(v, model::cost_option_table(), "cost.", [](S& c) -> auto& { return c.cost; });
    add_nested(v, de_option_table(), "de.", [](S& c) -> auto& { return c.fit.de; });
    return v;
  }();
  return t;
}

}  // namespace perfit::de
