// perfit.select and perfit.validate: the CLI's selection and validation
// (perfit/select/select_set.hpp, perfit/select/validate.hpp) in this process, serially, on a
// DataFrame's columns in memory.
#pragma once

#include <pybind11/pybind11.h>

namespace perfit::python {

void add_selecting(pybind11::module_& m);

}  // namespace perfit::python
