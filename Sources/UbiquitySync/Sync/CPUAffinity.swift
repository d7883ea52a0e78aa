import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The CPUs this process may run on.
enum CPUAffinity {
    /// How many CPUs this process may run on (`sched_getaffinity`, asked once: every import
    /// asks, and the lookup of the call by name costs more than the call): with one
    /// (`taskset -c 0`), work handed to another thread only takes turns with the caller,
    /// never runs beside it.
    static let usable: Int = {
        #if canImport(Glibc)
        // Glibc's module leaves out the GNU call (it needs _GNU_SOURCE): looked up by name.
        typealias GetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "sched_getaffinity") {
            var mask = [UInt64](repeating: 0, count: 16) // room for 1,024 CPUs
            let status = mask.withUnsafeMutableBytes { unsafeBitCast(symbol, to: GetAffinity.self)(0, $0.count, $0.baseAddress!) }
            if status == 0 { return mask.reduce(0) { $0 + $1.nonzeroBitCount } }
        }
        #endif
        return ProcessInfo.processInfo.activeProcessorCount
    }()
}
