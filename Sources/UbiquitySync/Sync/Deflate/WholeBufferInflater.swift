#if FastDeflate
import CLibDeflate
#endif
import CSystemZlib

/// Inflates a whole raw-deflate buffer into a buffer of exactly the size it must inflate to:
/// libdeflate under the `FastDeflate` trait (several times faster than zlib), zlib otherwise.
enum WholeBufferInflater {
    /// Whether `input` inflates to exactly `output.count` bytes, written into `output`.
    static func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        #if FastDeflate
        guard let decompressor = libdeflate_alloc_decompressor() else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        // No `actual_out_nbytes`: libdeflate then fails unless the entry fills the buffer exactly.
        return libdeflate_deflate_decompress(decompressor, input.baseAddress, input.count,
                                             output.baseAddress, output.count, nil) == LIBDEFLATE_SUCCESS
        #else
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return false }
        defer { inflateEnd(&stream) }
        // zlib counts in 32 bits: a larger buffer goes in slices.
        var inputDone = 0, outputDone = 0
        let slice = Int(UInt32.max >> 1)
        while true {
            let inputSlice = min(slice, input.count - inputDone), outputSlice = min(slice, output.count - outputDone)
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + inputDone })
            stream.avail_in = uInt(inputSlice)
            stream.next_out = output.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + outputDone }
            stream.avail_out = uInt(outputSlice)
            let status = CSystemZlib.inflate(&stream, Z_NO_FLUSH)
            inputDone += inputSlice - Int(stream.avail_in)
            outputDone += outputSlice - Int(stream.avail_out)
            if status == Z_STREAM_END { return outputDone == output.count }
            // Progress with room left on both sides means more is coming; anything else is damage.
            guard status == Z_OK, inputDone < input.count || outputDone < output.count else { return false }
            if inputSlice - Int(stream.avail_in) == 0 && outputSlice - Int(stream.avail_out) == 0 { return false }
        }
        #endif
    }
}
