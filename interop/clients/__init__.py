"""Client drivers: tiny programs that use one client's public API and print what the application sees."""
