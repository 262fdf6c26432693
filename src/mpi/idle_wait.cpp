#include "perfit/mpi/idle_wait.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "perfit/mpi/communicator.hpp"

namespace perfit::mpi {

void wait_idle(MPI_Request& request, const std::string& what) {
  auto sleep = std::chrono::microseconds(50);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done) return;
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(5000));
  }
}

void bcast_idle(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm,
                const std::string& what) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Ibcast(data, count, type, root, comm, &request), what);
  wait_idle(request, what);
}

}  // namespace perfit::mpi
