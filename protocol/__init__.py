"""What clients and services share: the pure codec between protobuf messages and engine values.

Below both `services` and `clients` (neither imports the other through it): it imports only the
engine and the generated protobuf code.
"""
