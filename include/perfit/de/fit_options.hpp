// Options of one fit beyond the DE's own: the polish, the rows the search sees and progress
// reporting. The fit itself is
// fit::fit (fit/engine.hpp), whatever the parallel layout.
#pragma once

#include <cstddef>

#include "perfit/de/de_options.hpp"

namespace perfit::de {

struct FitOptions {
  DeOptions de;
  bool polish = true;  // from the DE best: Newton (projected search) or Levenberg-Marquardt
  // With the polish on and no target cost, a set of more than 2x this many rows is searched on
  // every k-th row (at most this many); the polish and every result see all rows. 0: all rows.
  std::size_t search_rows = 65536;
  std::size_t progress_every = 25;  // generations between progress lines; 0: none
};

}  // namespace perfit::de
