// The system's zlib: baselines are deflated with it at a level of our choosing
// (ZIPFoundation, which reads them, always deflates at zlib's default level).
#include <zlib.h>
