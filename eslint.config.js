// Lint: typescript-eslint's recommended rules, and import rules that keep the layers apart:
// no import cycles, the core imports nothing of the layers above it, and a policy imports only
// the core, the shared policy code and its own folder (docs/architecture.md, "Boundaries").
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import globals from 'globals';
import { defineConfig } from 'eslint/config';
import { configs as tsConfigs } from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const root = dirname(fileURLToPath(import.meta.url));

// Read at every run, so a policy folder added later is covered without editing this file.
const policyFolders = readdirSync(join(root, 'src/policies'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'shared')
  .map((d) => d.name);

const policyZones = policyFolders.map((name) => ({
  target: `./src/policies/${name}`,
  from: './src',
  except: ['./core', './policies/shared', `./policies/${name}`],
  message: 'A policy imports only src/core, src/policies/shared and its own folder.',
}));

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'yarn-adapter/**', 'openapi/**', '.schedbrain/**'] },
  js.configs.recommended,
  tsConfigs.recommended,
  importX.flatConfigs.recommended,
  importX.flatConfigs.typescript,
  {
    files: ['**/*.{ts,mjs,js}'],
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: globals.node,
    },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: join(root, 'tsconfig.json') })],
    },
    rules: {
      // Unused names are errors, except deliberate ones written with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `const self = this` lets an object literal's getters read the instance that made it.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  {
    files: ['test/**', 'scripts/**', 'bench/**'],
    rules: {
      // Tests and scripts read the RM's untyped JSON and fixtures; `any` there is the honest type.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/core',
              from: './src',
              except: ['./core'],
              message: 'src/core imports nothing from the layers built on it.',
            },
            {
              target: './src/policies/shared',
              from: './src',
              except: ['./core', './policies/shared'],
              message: 'Shared policy code imports only src/core and itself.',
            },
            ...policyZones,
          ],
        },
      ],
    },
  },
);
