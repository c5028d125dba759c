//! knowledge.db: schema, migrations and queries.
