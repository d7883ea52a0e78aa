#include <libxml/xmlversion.h>
// libxml2 is built with ICU, and its encoding.h would then pull in the system ICU headers,
// whose UErrorCode clashes with the copy Foundation ships (_FoundationICU) in any Swift module
// that imports both. Nothing here uses the ICU-specific converter fields, so hide them.
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/parser.h>
#include <string.h>
