import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.tap/', '.scratch/', '.tools/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/explicit-function-return-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  },
  {
    // the study page takes the server's wire types, never its code: esbuild erases type imports only
    files: ['web/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/src/*', '../../src/**', '../../../src/**'], allowTypeImports: true, message: 'the page imports only types from the server (import type)' }]
      }]
    }
  }
)
