// The system's ISA-L (Debian libisal-dev): Intel's deflate, a few times faster than libdeflate
// at its fastest levels on a store's pages. Baselines are deflated with it (Sync/ZipWriter.swift).
#include <isa-l/igzip_lib.h>

// The work buffer each level needs (its default size), which Swift cannot read from the macros.
static inline uint32_t ubiquity_isal_level_buffer_size(uint32_t level) {
    switch (level) {
    case 0: return ISAL_DEF_LVL0_DEFAULT;
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return 0;
    }
}
