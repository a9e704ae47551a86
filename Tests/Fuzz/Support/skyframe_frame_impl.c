/* The C decoder header's implementation, linked into the Swift fuzz targets: the differential
 * target compares it with the Swift codec (the Swift side imports the header as the module
 * CSkyframeFrame, module.modulemap). */
#define SKYFRAME_FRAME_IMPLEMENTATION
#include "skyframe_frame.h"
