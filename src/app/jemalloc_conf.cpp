// jemalloc's options for the perfit executable, read by jemalloc at its start (only linked with
// PERFIT_JEMALLOC; MALLOC_CONF in the environment adds to them and wins).
//
// thp:always: jemalloc asks the kernel for transparent huge pages on the memory it maps
// (madvise), so that fresh memory takes a page fault per 2 MB, not per 4 KB. On this project's
// VMs a page fault costs ~10 us of the kernel's time: writing a selection store of 10^6 winners
// took 410,000 of them (the end of a 2-rank selection 8.4-9.1 s, against 7.1-7.3 s with huge
// pages; docs/performance.md), for ~25 MB more resident memory in a 10^5-set selection.
extern "C" {
__attribute__((used)) const char* malloc_conf = "thp:always";
}
