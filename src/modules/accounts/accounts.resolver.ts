import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { AppContext } from '../../context/context';
import { Public, Rest } from '../../core/graphql-decorators';
import { SignupInput } from './accounts.inputs';
import { SignupUserResponse } from './accounts.types';
import { signup } from './signup.service';

@Resolver()
export class AccountResolver {
  @Mutation(() => SignupUserResponse, {
    description: 'Create an account, its personal organization, default workspace and project. Optional header X-Captcha-Token.',
  })
  @Public()
  @Rest('POST', '/auth/signup', { status: 201, tags: ['accounts'] })
  signup(@Arg('input', () => SignupInput) input: SignupInput, @Ctx() ctx: AppContext): Promise<SignupUserResponse> {
    return signup(input, ctx.headers.get('x-captcha-token'));
  }
}
