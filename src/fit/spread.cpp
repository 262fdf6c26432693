#include "perfit/fit/spread.hpp"

#include <algorithm>

#include "perfit/mpi/agreement.hpp"
#include "perfit/mpi/communicator.hpp"
#include "perfit/mpi/task_counter.hpp"

namespace perfit::fit {

std::vector<double> spread(MPI_Comm comm, const std::vector<std::size_t>& widths,
                           const std::function<void(std::size_t, double*)>& run) {
  int rank = 0, size = 1;
  if (comm != MPI_COMM_NULL) {
    mpi::check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    mpi::check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  }
  std::vector<std::size_t> offset(widths.size() + 1, 0);
  for (std::size_t j = 0; j < widths.size(); ++j) offset[j + 1] = offset[j] + widths[j];
  std::vector<double> packed(offset.back(), 0.0);
  if (size == 1) {
    for (std::size_t j = 0; j < widths.size(); ++j) run(j, packed.data() + offset[j]);
    return packed;
  }
  // Taken in turn on one node: tasks cost alike, cores do not (one rank beside a busy core ran
  // its 6 of 12 fits 1.5x slower and the other rank waited); dealt round-robin across nodes.
  mpi::TaskCounter counter(comm);
  mpi::all_or_none(comm, [&] {
    if (counter.shared()) {
      for (std::size_t j = counter.next(); j < widths.size(); j = counter.next())
        run(j, packed.data() + offset[j]);
      return;
    }
    for (std::size_t j = static_cast<std::size_t>(rank); j < widths.size();
         j += static_cast<std::size_t>(size)) {
      run(j, packed.data() + offset[j]);
    }
  });
  // In pieces: MPI counts are int, a bootstrap of many params may pass 2^31 doubles.
  constexpr std::size_t kPiece = std::size_t{1} << 28;
  for (std::size_t at = 0; at < packed.size(); at += kPiece) {
    const int n = static_cast<int>(std::min(kPiece, packed.size() - at));
    mpi::check(MPI_Allreduce(MPI_IN_PLACE, packed.data() + at, n, MPI_DOUBLE, MPI_SUM, comm),
               "MPI_Allreduce (spread results)");
  }
  return packed;
}

std::shared_ptr<const data::MeasurementTable> gather_rows(const data::MeasurementTable& t,
                                                          MPI_Comm comm) {
  int size = 1;
  mpi::check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  int mine = static_cast<int>(t.rows());
  std::vector<int> counts(static_cast<std::size_t>(size)),
      displs(static_cast<std::size_t>(size), 0);
  mpi::check(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm),
             "MPI_Allgather (row counts)");
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  auto out = std::make_shared<data::MeasurementTable>();
  for (const data::Column& c : t.columns()) {
    const std::vector<double> local = c.to_double();
    std::vector<double> all(static_cast<std::size_t>(displs.back() + counts.back()));
    mpi::check(MPI_Allgatherv(local.data(), mine, MPI_DOUBLE, all.data(), counts.data(),
                              displs.data(), MPI_DOUBLE, comm),
               "MPI_Allgatherv (rows for lambda: auto)");
    out->add_column(data::Column(c.name(), std::move(all)));
  }
  out->attributes() = t.attributes();
  return out;
}

}  // namespace perfit::fit
