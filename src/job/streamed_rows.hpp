// A rank's share of a large set read a chunk at a time and compressed as it is read
// (model::Compressor), so that a fit's memory grows with the distinct configurations, not the
// rows: stores larger than memory (docs/stores.md "Larger than memory").
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "fit_setup.hpp"
#include "perfit/data/row_validity.hpp"
#include "perfit/model/compression.hpp"

namespace perfit::job {

struct StreamedSlice {
  std::shared_ptr<model::CompressedRows> rows;  // the configurations, with their moments
  data::RowValidity invalid;  // NaN/inf rows of the chunks read (reading stops at the first
                              // chunk with one unless drop_invalid)
  std::string error;          // this rank's first bad target or weight, naming its row; "": none
  std::size_t stride = 1;     // 1: every row; k: every k-th (rows mostly distinct)
  std::string sampled;        // why a sample was fitted, for the result's warnings; "": not
  // Rows mostly distinct but at most kWholeShares x stream_rows of them: read them whole
  // instead (nothing else of this is set).
  bool in_memory = false;
};

// Rows mostly distinct: up to this many times stream_rows are read into memory, not sampled.
inline constexpr std::size_t kWholeShares = 16;

// Whether this rank's share [first, second) is streamed: a set of the store (not rows given in
// memory, not a joint fit), compressed (squared residuals), more rows than stream_rows.
bool streams(const FitSetup& s, std::pair<std::size_t, std::size_t> slice);

// The compressed rows of [first, second). Progress lines (rows read, the rate) at info when
// `progress`. Throws: DataError / IoError from the store (a damaged chunk names its rows).
StreamedSlice stream_slice(const FitSetup& s, std::pair<std::size_t, std::size_t> slice,
                           bool progress);

// The cost a streamed table is fitted with: each configuration weighted by its rows.
model::CostOptions streamed_cost(model::CostOptions cost);

}  // namespace perfit::job
