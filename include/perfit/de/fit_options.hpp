// Options of one fit beyond the DE's own: the polish and progress reporting. The fit itself is
// fit::fit (fit/engine.hpp), whatever the parallel layout.
#pragma once

#include <cstddef>

#include "perfit/de/de_options.hpp"

namespace perfit::de {

struct FitOptions {
  DeOptions de;
  bool polish = true;               // bounded Levenberg-Marquardt from the DE best
  std::size_t progress_every = 25;  // generations between progress lines; 0: none
};

}  // namespace perfit::de
