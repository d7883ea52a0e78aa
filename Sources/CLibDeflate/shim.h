// The system's libdeflate (Debian libdeflate-dev): whole-buffer deflate and inflate, several
// times faster than zlib at a smaller output. Baselines are deflated and inflated with it
// (Sync/ZipWriter.swift, Sync/InflatedStore.swift); zlib stays for CRC-32 combining.
#include <libdeflate.h>
