import CMosquitto

/// The PEM files of a TLS configuration read with the OpenSSL libmosquitto uses, before any
/// connection: each check answers what is wrong with a file, or nil when libmosquitto can use it.
public enum TLSFiles {
  /// A CA file: at least one certificate, all of them readable.
  public static func caFileProblem(_ path: String) -> String? {
    let (count, problem) = certificates(in: path)
    return problem ?? (count == 0 ? "holds no certificate" : nil)
  }

  /// A client certificate: the first certificate of the file, readable and valid now.
  public static func certificateProblem(_ path: String) -> String? {
    withCertificate(path) { certificate in
      if X509_cmp_current_time(X509_get0_notAfter(certificate)) < 0 { return "has expired" }
      if X509_cmp_current_time(X509_get0_notBefore(certificate)) > 0 { return "is not valid yet" }
      return nil
    }
  }

  /// A private key: readable, not encrypted (libmosquitto cannot ask for a passphrase) and,
  /// when `certificate` is given (a file `certificateProblem` passed), the key of its
  /// certificate.
  public static func keyProblem(_ path: String, certificate: String?) -> String? {
    guard let file = BIO_new_file(path, "r") else { return unreadable() }
    defer { BIO_free(file) }
    ERR_clear_error()
    // No passphrase, ever: without this callback OpenSSL would ask on the terminal.
    guard let key = PEM_read_bio_PrivateKey(file, nil, { _, _, _, _ in 0 }, nil) else {
      return "holds no private key that can be read without a passphrase (\(openSSLError()))"
    }
    defer { EVP_PKEY_free(key) }
    guard let certificate else { return nil }
    return withCertificate(certificate) { x509 in
      X509_check_private_key(x509, key) == 1
        ? nil : "is not the key of the certificate in '\(certificate)'"
    }
  }

  /// How many certificates `path` holds, or what keeps OpenSSL from reading them.
  private static func certificates(in path: String) -> (count: Int, problem: String?) {
    guard let file = BIO_new_file(path, "r") else { return (0, unreadable()) }
    defer { BIO_free(file) }
    ERR_clear_error()
    var count = 0
    while let certificate = PEM_read_bio_X509(file, nil, nil, nil) {
      X509_free(certificate)
      count += 1
    }
    // The end of the file reads as "no start line"; anything else is a broken certificate.
    let last = ERR_peek_last_error()
    defer { ERR_clear_error() }
    if last != 0, ERR_GET_REASON(last) != PEM_R_NO_START_LINE {
      return (count, "holds a certificate OpenSSL cannot read (\(openSSLError()))")
    }
    return (count, nil)
  }

  private static func withCertificate(
    _ path: String, _ body: (OpaquePointer) -> String?
  ) -> String? {
    guard let file = BIO_new_file(path, "r") else { return unreadable() }
    defer { BIO_free(file) }
    ERR_clear_error()
    guard let certificate = PEM_read_bio_X509(file, nil, nil, nil) else {
      let last = ERR_peek_last_error()
      defer { ERR_clear_error() }
      return ERR_GET_REASON(last) == PEM_R_NO_START_LINE
        ? "holds no certificate" : "holds a certificate OpenSSL cannot read (\(openSSLError()))"
    }
    defer { X509_free(certificate) }
    return body(certificate)
  }

  private static func unreadable() -> String {
    defer { ERR_clear_error() }
    return "cannot be read (\(openSSLError()))"
  }

  /// OpenSSL's text for the newest error of this thread's queue.
  private static func openSSLError() -> String {
    let code = ERR_peek_last_error()
    guard code != 0 else { return "no reason given" }
    var text = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &text, text.count)
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
