// Build identity recorded in the provenance of every file perfit writes.
#pragma once

namespace perfit {
const char* version();       // e.g. "0.1.0"
const char* git_revision();  // short hash at configure time, or "unknown"
}  // namespace perfit
