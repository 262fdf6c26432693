// One --factors binding for every command and every candidate model: a binding for a factor
// that a model does not read is left out (and noted), and every factor the bound model then
// reads must be a column of the set, with a message that says how to bind it.
#pragma once

#include <string>
#include <vector>

#include "perfit/io/store_reader.hpp"
#include "perfit/model/factor_binding.hpp"
#include "perfit/model/model.hpp"

namespace perfit::job {

struct BoundSpec {
  model::ModelSpec spec;                     // with the bindings it reads applied
  std::vector<model::FactorBinding> unused;  // bindings for factors it does not read
};

// `set` names the set in messages ("'runs.h5' set '/a/b'"). The set's target (its measured
// time) is never a factor's column, nor suggested as one.
// Throws: ConfigError for an unbound factor that is no column ("bind it with --factors
// p=<column>", listing the numeric columns), a bound column the set lacks or holds text in
// ("did you mean ..."), or a factor bound to (or named as) the target.
BoundSpec bind_to_set(const model::ModelSpec& spec, const std::string& factors,
                      const io::SetInfo& info, const std::string& set);

// One info line for bindings the model does not read (nothing when there are none).
void note_unused(const BoundSpec& b);

}  // namespace perfit::job
