import CMosquitto

/// `mosquitto_lib_init` is the one libmosquitto function that is not thread safe: run it once per
/// process, before the first handle. Never cleaned up: handles may live until the process ends.
enum MosquittoLibrary {
  static let initialized: Void = { _ = mosquitto_lib_init() }()
}
