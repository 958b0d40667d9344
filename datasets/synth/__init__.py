"""The scene generator: tiles drawn or cut from real photos, laid out on tables and racks."""
