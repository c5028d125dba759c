//! Read-only access to the users' tracking.db.
