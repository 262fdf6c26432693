// A joint fit of several sets (`fit --set '/*/resnet50'`): the rows of every set a pattern
// matches in one table, with a text column naming each row's set, so that each set is a group
// (job/groups.hpp) as a value of a `--by` column would be.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "perfit/data/measurement_table.hpp"
#include "perfit/io/store_reader.hpp"

namespace perfit::job {

// The column that names each row's set (its path), and the --by a pattern of sets defaults to.
inline constexpr const char* kSetColumn = "set";

struct SeveralSets {
  std::shared_ptr<data::MeasurementTable> rows;  // every column of every set, then kSetColumn
  io::SetInfo info;  // path: the pattern; rows: all; columns: the first set's and kSetColumn;
                     // attributes: the first set's, `checksum` that of the whole table
  std::size_t sets = 0;
};

// Throws: ConfigError when nothing matches; DataError naming the set that differs from the
// first in its target, unit or columns, or that has a column named kSetColumn.
SeveralSets read_several_sets(const io::StoreReader& store, const std::string& pattern);

// The table with `columns` only, in that order (a fit keeps what it reads: other text columns
// cannot travel between the ranks of an island). Throws: DataError naming a missing column.
data::MeasurementTable only_columns(const data::MeasurementTable& t,
                                    const std::vector<std::string>& columns);

}  // namespace perfit::job
