// Placeholder until the real grammar is published.
module.exports = grammar({
  name: 'lean',
  externals: $ => [$._placeholder],
  rules: {
    source_file: $ => repeat(/[^\s]+/),
  },
});
