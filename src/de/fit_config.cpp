#include "perfit/de/fit_config.hpp"

#include "perfit/core/error.hpp"

namespace perfit::de {

void FitConfig::validate() const {
  if (data.empty()) throw ConfigError("no data store: pass --data STORE.h5 (or 'data:' in the config)");
  if (set.empty()) throw ConfigError("no set: pass --set /<framework>/<model> (or 'set:' in the config); `perfit inspect " + data + "` lists them");
  if (out.empty()) throw ConfigError("no output: pass --out RESULT.h5 (or 'out:' in the config)");
  if (model.empty()) throw ConfigError("no model: pass --model generic (or a YAML file); `perfit models` lists them");
  if (threads == 0 || threads > 1024) {
    throw ConfigError("threads must be in 1..1024, got " + std::to_string(threads));
  }
  cost.validate();
}

}  // namespace perfit::de
