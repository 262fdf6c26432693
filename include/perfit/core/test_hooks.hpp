// Fault injection and test pacing, in one place. Tests make an island slow or a checkpoint
// write last long enough to be killed in; a hook never changes a result and a user never needs
// one. Hooks that are run options (islands.slow_island, islands.slow_ms) are marked in their
// option table (Option::test_hook): accepted as flags and keys, never shown in --help or the
// shipped example. The others come from one environment variable:
//   PERFIT_TEST_HOOKS="checkpoint_delay_ms=800[,name=value...]"
#pragma once

#include <string_view>

namespace perfit {

// The names PERFIT_TEST_HOOKS accepts.
inline constexpr std::string_view kCheckpointDelayMs =
    "checkpoint_delay_ms";  // each checkpoint write sleeps
// Selection over many sets: each chunk of sets sleeps first, and the selection files are
// rewritten this often (instead of at most every 30 s), so that a test kills a job between writes.
inline constexpr std::string_view kSelectChunkDelayMs = "select_chunk_delay_ms";
inline constexpr std::string_view kSelectionFlushMs = "selection_flush_ms";
// `perfit import` of a CSV file reads it in chunks of this many rows whatever its size (by
// default only files of 256 MiB and more), so that a test compares both ways on small files.
inline constexpr std::string_view kImportChunkRows = "import_chunk_rows";
// `perfit import --format extrap` writes its sets this many at a time (by default 65,536), so that
// a test writes a store of several packs from a small file.
inline constexpr std::string_view kImportBlockSets = "import_block_sets";

// The value of hook `name` in PERFIT_TEST_HOOKS, 0 when not given.
// Throws: ConfigError naming the variable, the entry found and what is expected.
double test_hook(std::string_view name);

}  // namespace perfit
