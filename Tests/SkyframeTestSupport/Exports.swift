// The manual clock moved to the gateway's testing module; the integration tests keep seeing it
// through this module.
@_exported import SkyframeGatewayTesting
